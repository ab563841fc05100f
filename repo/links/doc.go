// Package links holds td's use cases on links between issues: link and
// unlink under policy's rules (no cycles of the ordering kinds), the links
// of an issue with their inverses, the ready list and an issue's open
// children.
package links
