package review

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// checkStatusTransitions derives every issue's status change in the range
// from the committed files themselves, not from the ledger's account of
// it. An issue whose status differs from the base's (a new issue starts
// open) must have transitions among the ledger entries added in the
// range, and when it has, its status must be where the ledger's last
// transition by time (audit.TimeOrder) put it: the base's entries count
// too, since after a merge of two branches that both moved the status the
// later move is the one the file keeps, as td resolve keeps it. A status
// typed into the file is then a violation, instead of a decision nobody
// judged; one td set is re-decided by checkReviews.
func (c *checker) checkStatusTransitions() {
	for _, id := range sortedKeys(c.issues) {
		is := c.issues[id]
		p := is.Path
		before := domain.StatusOpen
		if c.base.Has(p) {
			if c.base.Same(c.head, p) {
				continue
			}
			old := c.baseIssue(id, p)
			if old == nil {
				continue
			}
			before = old.Status
		}
		added := c.addedEntries(id)
		isAdded := make(map[int]*addedEntry, len(added))
		moved := false
		for i := range added {
			isAdded[added[i].index] = &added[i]
			if _, _, ok := added[i].Transition(); ok {
				moved = true
			}
		}
		path := replayStatus(before, c.ledgers[id], func(i int) bool { return isAdded[i] != nil })
		if path.broken >= 0 {
			// A status the issue never had, as td recorded it: someone
			// set it by hand before td moved it on.
			e := isAdded[path.broken]
			from, _, _ := e.Transition()
			c.add(c.ledgerPath(id), e.line, RuleStatusTransition, "%s by %s moved %s from %s, a status it never had since %s (it was %s); statuses move only through td, so restore status: %s and run the td command",
				e.Action, orNone(e.Session), id, from, c.base.Rev, domain.QuoteList(path.had), before)
			continue
		}
		line := c.frontmatterLine(p, "status")
		switch {
		case !moved && is.Status == before:
		case !moved:
			c.add(p, line, RuleStatusTransition, "status changed from %s to %s since %s, and the ledger records no transition; statuses move only through td (start, review, approve, reject, close, block, reopen), which the review policy judges: restore status: %s and run the td command",
				before, is.Status, c.base.Rev, before)
		case string(is.Status) != path.last:
			c.add(p, line, RuleStatusTransition, "status is %s, but the last transition the ledger recorded since %s moved it to %s; restore status: %s, or make the change with td",
				is.Status, c.base.Rev, path.last, path.last)
		}
	}
}

// statusPath is what the transitions of an issue's ledger say of its
// status.
type statusPath struct {
	// last is the status the last transition by time moved it to, "" for
	// none.
	last string
	// had lists the statuses it had up to broken (all of them when
	// nothing broke), sorted.
	had []string
	// broken is the index of the first added transition that moved it from
	// a status it never had, -1 when none did.
	broken int
}

// replayStatus replays the transitions among entries (audit's
// Entry.Transition: the actions that move a status, and only they) in the
// order of their times (audit.TimeOrder): after a union merge a ledger
// holds ours, then theirs, and the file's order says which branch came
// first in the merge, not which change came last. An issue starts open,
// and had the status the base gives it (before). Only the entries added
// reports true for are judged for where they moved it from: the base's
// were judged when they landed, and a branch that forked before them moved
// the issue from a status it had on the branch, which the base's history
// also holds. An entry of any other action is not a transition, whatever
// its details say.
func replayStatus(before domain.Status, entries []audit.Entry, added func(i int) bool) statusPath {
	p := statusPath{broken: -1}
	had := map[string]bool{string(domain.StatusOpen): true, string(before): true}
	for _, i := range audit.TimeOrder(entries) {
		from, to, ok := entries[i].Transition()
		if !ok {
			continue
		}
		if from != "" && !had[from] && added(i) {
			p.broken = i
			break
		}
		had[to] = true
		p.last = to
	}
	p.had = sortedKeys(had)
	return p
}

// ledgerPath is the path of issue id's ledger, as violations name it.
func (c *checker) ledgerPath(id string) string {
	return repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"
}

// frontmatterLine is the 1-based line of key in the head's file p, 0 when
// it cannot be found.
func (c *checker) frontmatterLine(p, key string) int {
	data, err := c.head.Read(p)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), key+":") {
			return n
		}
	}
	return 0
}
