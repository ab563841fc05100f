package audit

import "sort"

// transitionActions are the actions that move an issue's status; each
// records the status it left and the one it reached as "from" and "to".
// An import records the status it set as "to" alone.
var transitionActions = map[string]bool{
	ActionStarted: true, ActionUnstarted: true, ActionSubmitted: true,
	ActionApproved: true, ActionRejected: true, ActionClosed: true,
	ActionReopened: true, ActionBlocked: true, ActionUnblocked: true,
	ActionImported: true,
}

// StatusTo returns the status the entry moved its issue to, and false for
// an entry that moved no status: a link's "to" names an issue, a reopened
// criterion's "to" is a todo's status, and neither is the issue's.
func (e Entry) StatusTo() (string, bool) {
	if !transitionActions[e.Action] {
		return "", false
	}
	to, ok := e.Details["to"].(string)
	return to, ok && to != ""
}

// LastTransition returns the last entry, by time, that moved the issue's
// status; entries of one second keep their order. After a union merge a
// ledger holds both branches' entries, ours then theirs: their order in
// the file says which branch came first in the merge, not which change
// came last. It reports false when no entry moved the status.
func LastTransition(entries []Entry) (Entry, bool) {
	idx := make([]int, 0, len(entries))
	for i, e := range entries {
		if _, ok := e.StatusTo(); ok {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return Entry{}, false
	}
	sort.SliceStable(idx, func(a, b int) bool { return entries[idx[a]].TS.Before(entries[idx[b]].TS) })
	return entries[idx[len(idx)-1]], true
}
