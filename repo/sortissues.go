package repo

import (
	"slices"
	"strings"
)

// Sort keys of SortBy: the orders td list offers.
const (
	SortPriority = "priority" // most urgent first, then oldest (the default)
	SortCreated  = "created"  // newest first
	SortUpdated  = "updated"  // most recently changed first; needs FillUpdated
	SortTitle    = "title"    // by title, case folded
)

// SortKeys lists the keys SortBy takes, the default first.
func SortKeys() []string { return []string{SortPriority, SortCreated, SortUpdated, SortTitle} }

// SortBy orders issues by key, ties broken by the default order
// (priority, then age, then ID). An unknown key is an invalid_argument
// error naming the keys.
func SortBy(list []*Issue, key string) error {
	SortIssues(list)
	var cmp func(a, b *Issue) int
	switch key {
	case "", SortPriority:
		return nil
	case SortCreated:
		cmp = func(a, b *Issue) int { return b.CreatedAt.Compare(a.CreatedAt) }
	case SortUpdated:
		cmp = func(a, b *Issue) int { return b.UpdatedAt.Compare(a.UpdatedAt) }
	case SortTitle:
		cmp = func(a, b *Issue) int { return strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)) }
	default:
		return Errorf(CodeInvalid, "--sort %q is not a sort key; use one of %s", key, strings.Join(SortKeys(), ", "))
	}
	slices.SortStableFunc(list, cmp)
	return nil
}
