package repo

import (
	"cmp"
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

// SortBy returns the first limit issues of list (all of them when limit
// is 0 or less) ordered by key, ties broken by the default order
// (priority, then age, then ID); list itself may be reordered. In the
// default order the first are picked without sorting the rest
// (SortFirst). An unknown key is an invalid_argument error naming the
// keys.
func SortBy(list []*Issue, key string, limit int) ([]*Issue, error) {
	var cmp func(a, b *Issue) int
	switch key {
	case "", SortPriority:
		return SortFirst(list, limit), nil
	case SortCreated:
		cmp = func(a, b *Issue) int { return b.CreatedAt.Compare(a.CreatedAt) }
	case SortUpdated:
		cmp = func(a, b *Issue) int { return b.UpdatedAt.Compare(a.UpdatedAt) }
	case SortTitle:
		cmp = func(a, b *Issue) int { return strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title)) }
	default:
		return nil, Errorf(CodeInvalid, "--sort %q is not a sort key; use one of %s", key, strings.Join(SortKeys(), ", "))
	}
	SortIssues(list)
	slices.SortStableFunc(list, cmp)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return list, nil
}

// SortIssues orders issues by priority, then creation time, then ID.
// It sorts a slice of keys rather than the issues: comparing two issues
// through their pointers reached into memory all over the heap, and at
// 10,000 issues the sort took a tenth of td board's time.
func SortIssues(list []*Issue) {
	keys := issueKeys(list)
	slices.SortFunc(keys, compareIssueKeys)
	for i, k := range keys {
		list[i] = k.is
	}
}

// SortFirst returns the first n of list in SortIssues's order, without
// ordering the rest: td list's first page of 75,000 open issues is a pass
// over them, not a sort. n <= 0, or n >= len(list), sorts list whole and
// returns it.
func SortFirst(list []*Issue, n int) []*Issue {
	if n <= 0 || n >= len(list) {
		SortIssues(list)
		return list
	}
	keys := issueKeys(list)
	// top is a heap of the n first seen so far, the last of them at its
	// root: a later key enters only if it comes before that one.
	top := keys[:n]
	for i := n/2 - 1; i >= 0; i-- {
		siftDownLast(top, i)
	}
	for _, k := range keys[n:] {
		if compareIssueKeys(k, top[0]) < 0 {
			top[0] = k
			siftDownLast(top, 0)
		}
	}
	slices.SortFunc(top, compareIssueKeys)
	out := make([]*Issue, n)
	for i, k := range top {
		out[i] = k.is
	}
	return out
}

// siftDownLast restores, below i, the heap order of h that keeps at each
// node a key coming after its children's.
func siftDownLast(h []issueKey, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && compareIssueKeys(h[c+1], h[c]) > 0 {
			c++
		}
		if compareIssueKeys(h[c], h[i]) <= 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// issueKey is what SortIssues compares of an issue, gathered in one place.
type issueKey struct {
	prio uint64 // the priority's first 8 bytes, big-endian
	sec  int64
	nsec int32
	plen int // the priority's length: over 8, it is compared whole
	is   *Issue
}

func issueKeys(list []*Issue) []issueKey {
	keys := make([]issueKey, len(list))
	for i, is := range list {
		p := is.Priority
		var v uint64
		for j := 0; j < 8; j++ {
			v <<= 8
			if j < len(p) {
				v |= uint64(p[j])
			}
		}
		keys[i] = issueKey{prio: v, sec: is.CreatedAt.Unix(), nsec: int32(is.CreatedAt.Nanosecond()), plen: len(p), is: is}
	}
	return keys
}

func compareIssueKeys(a, b issueKey) int {
	if a.prio != b.prio {
		return cmp.Compare(a.prio, b.prio)
	}
	if a.plen > 8 || b.plen > 8 {
		if c := strings.Compare(string(a.is.Priority), string(b.is.Priority)); c != 0 {
			return c
		}
	} else if a.plen != b.plen {
		return cmp.Compare(a.plen, b.plen) // the shorter is the longer's prefix, zeros after
	}
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	if a.nsec != b.nsec {
		return cmp.Compare(a.nsec, b.nsec)
	}
	return strings.Compare(a.is.ID, b.is.ID)
}
