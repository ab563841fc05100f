// Package links holds td's use cases on links between issues: link and
// unlink under policy's rules (no cycles of the ordering kinds), the links
// of an issue with their inverses, the ready list, an issue's (open)
// children, and over issues already loaded, every issue's children counted
// and an epic's descendants at any depth.
package links
