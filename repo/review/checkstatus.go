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
// it: an issue whose status differs from the base's (a new issue starts
// open) must have, among the ledger entries added in the range, a
// transition whose last destination is the status the file now has. A
// status typed into the file is then a violation, instead of a decision
// nobody judged; one td set is re-decided by checkReviews.
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
		entries := make([]audit.Entry, len(added))
		for i, e := range added {
			entries[i] = e.Entry
		}
		path := replayStatus(before, entries)
		if path.broken >= 0 {
			// A status the issue never had, as td recorded it: someone
			// set it by hand before td moved it on.
			e := added[path.broken]
			from, _, _ := e.Transition()
			c.add(c.ledgerPath(id), e.line, RuleStatusTransition, "%s by %s moved %s from %s, a status it never had since %s (it was %s); statuses move only through td, so restore status: %s and run the td command",
				e.Action, orNone(e.Session), id, from, c.base.Rev, domain.QuoteList(path.had), before)
			continue
		}
		last := path.last
		if statusRecorded(before, is.Status, last) {
			continue
		}
		line := c.frontmatterLine(p, "status")
		if last == "" {
			c.add(p, line, RuleStatusTransition, "status changed from %s to %s since %s, and the ledger records no transition; statuses move only through td (start, review, approve, reject, close, block, reopen), which the review policy judges: restore status: %s and run the td command",
				before, is.Status, c.base.Rev, before)
			continue
		}
		c.add(p, line, RuleStatusTransition, "status is %s, but the last transition the ledger recorded since %s moved it to %s; restore status: %s, or make the change with td",
			is.Status, c.base.Rev, last, last)
	}
}

// statusPath is what the transitions among a range's ledger entries say
// of an issue's status, replayed from the status it had before.
type statusPath struct {
	// last is the status the last transition moved it to, "" for none.
	last string
	// had lists the statuses it had up to broken (all of them when
	// nothing broke), sorted.
	had []string
	// broken is the index of the first transition that moved it from a
	// status it never had, -1 when none did.
	broken int
}

// replayStatus replays the transitions among entries (audit's
// Entry.Transition: the actions that move a status, and only they) from
// the status before. An entry of any other action is not a transition,
// whatever its details say.
func replayStatus(before domain.Status, entries []audit.Entry) statusPath {
	p := statusPath{broken: -1}
	had := map[string]bool{string(before): true}
	for i, e := range entries {
		from, to, ok := e.Transition()
		if !ok {
			continue
		}
		if from != "" && !had[from] {
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

// statusRecorded reports whether an issue's status now is accounted for:
// the last transition recorded in the range (lastTo, "" for none) put it
// there, or nothing moved it and it is what it was at the base.
func statusRecorded(before, now domain.Status, lastTo string) bool {
	if lastTo == "" {
		return now == before
	}
	return lastTo == string(now)
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
