// Package todos holds td's use cases on an issue's checklist: the todo
// operations (add, set, start, done, block, note, drop), td fmt, the
// proposals a subagent makes and its root agent decides, and anchors. The
// checklist itself is parsed and edited by package markdown; the rules on
// who may do what are policy's.
package todos
