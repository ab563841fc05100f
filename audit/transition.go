package audit

import "sort"

// LastTransition returns the last entry, by time, that moved the issue's
// status; entries of one second keep their order. After a union merge a
// ledger holds both branches' entries, ours then theirs: their order in
// the file says which branch came first in the merge, not which change
// came last. It reports false when no entry moved the status.
func LastTransition(entries []Entry) (Entry, bool) {
	var last Entry
	found := false
	for _, i := range TimeOrder(entries) {
		if _, _, ok := entries[i].Transition(); ok {
			last, found = entries[i], true
		}
	}
	return last, found
}

// TimeOrder returns the indexes of entries in the order of their times;
// entries of one second keep the order they have. td check --base replays
// a range's transitions in this order and td resolve keeps the status of
// the last of them, so the status a person keeps when both sides moved it
// is the one CI accepts.
func TimeOrder(entries []Entry) []int {
	idx := make([]int, len(entries))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return entries[idx[a]].TS.Before(entries[idx[b]].TS) })
	return idx
}
