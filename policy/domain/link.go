package domain

import "slices"

// LinkKind is the type of a link between two issues.
type LinkKind string

// Link kinds. The first four are stored, once, in the frontmatter of the
// source issue; the last three are the same links seen from their target,
// computed and never stored.
const (
	ChildOf     LinkKind = "child_of"
	DuplicateOf LinkKind = "duplicate_of"
	BlockedBy   LinkKind = "blocked_by"
	RelatesTo   LinkKind = "relates_to"

	ParentOf     LinkKind = "parent_of"
	DuplicatedBy LinkKind = "duplicated_by"
	Blocks       LinkKind = "blocks"
)

// LinkKinds returns the stored link kinds in the order td lists them.
func LinkKinds() []LinkKind { return []LinkKind{ChildOf, DuplicateOf, BlockedBy, RelatesTo} }

// Stored reports whether k is one of the stored link kinds.
func (k LinkKind) Stored() bool { return slices.Contains(LinkKinds(), k) }

// Inverse names a stored link as its target sees it (parent_of for
// child_of, duplicated_by for duplicate_of, blocks for blocked_by,
// relates_to for itself) and an inverse kind as its source stores it. It
// returns "" for anything else.
func (k LinkKind) Inverse() LinkKind {
	switch k {
	case ChildOf:
		return ParentOf
	case DuplicateOf:
		return DuplicatedBy
	case BlockedBy:
		return Blocks
	case RelatesTo:
		return RelatesTo
	case ParentOf:
		return ChildOf
	case DuplicatedBy:
		return DuplicateOf
	case Blocks:
		return BlockedBy
	}
	return ""
}

// Link is a typed link stored in the frontmatter of its source issue.
type Link struct {
	Kind LinkKind `yaml:"kind" json:"kind"`
	To   string   `yaml:"to" json:"to"`
}

// Computed reports whether k is an inverse kind (parent_of, duplicated_by,
// blocks): a link seen from its target, never stored under that name.
func (k LinkKind) Computed() bool { return k == ParentOf || k == DuplicatedBy || k == Blocks }
