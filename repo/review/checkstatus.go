package review

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// checkStatusTransitions derives every issue's status changes in the range
// from the committed files themselves, not from the ledger's account of
// them, one commit at a time, as td made them: a commit that changes an
// issue's status must add ledger transitions that move it there, from the
// status its parent had. A merge commit may keep either side's status
// (both sides' moves were td's, and the person merging picks one; td
// resolve keeps the later); one that gives a status neither side had must
// add the transitions to it. A status typed into the file is then a
// violation, instead of a decision nobody judged; one td set is
// re-decided by checkReviews. Changes not committed yet (td check --full,
// the pre-commit hook) are one more step on top of HEAD (and MERGE_HEAD
// while a merge is concluded).
func (c *checker) checkStatusTransitions() error {
	rg := c.git()
	if err := rg.open(); err != nil {
		return err
	}
	for _, id := range sortedKeys(c.issues) {
		is := c.issues[id]
		lp := c.ledgerPath(id)
		if c.base.Has(is.Path) && c.base.Same(c.head, is.Path) && c.base.Same(c.head, lp) {
			continue
		}
		steps, err := c.statusSteps(rg, id)
		if err != nil {
			return err
		}
		for _, st := range steps {
			c.judgeStatusStep(is, st)
		}
	}
	return nil
}

// statusStep is one commit of the range that touched an issue's file or
// ledger, or the changes not committed yet: the status it gives the issue,
// the statuses its parents gave it, and the ledger entries it added (in
// none of its parents' ledgers).
type statusStep struct {
	commit  string   // "" for the changes not committed yet
	status  string   // "" when the step has no readable issue file
	parents []string // the parents' statuses; "open" for a parent without the issue
	added   []audit.Entry
}

// where names the step in a violation.
func (st statusStep) where() string {
	if st.commit == "" {
		return "in the changes not committed yet"
	}
	return "in commit " + st.commit[:min(7, len(st.commit))]
}

// statusSteps lists the steps of the range that touched issue id, oldest
// first.
func (c *checker) statusSteps(rg *reviewGit, id string) ([]statusStep, error) {
	var steps []statusStep
	if rg.g == nil {
		return nil, nil
	}
	issuePath := rg.prefix + "/" + repo.IssuesDir + "/" + id + ".md"
	ledgerPath := rg.prefix + "/" + repo.HistoryDir + "/" + id + ".jsonl"
	seen := map[string]bool{}
	var commits []*gitrepo.Commit
	for _, p := range []string{issuePath, ledgerPath} {
		h, err := rg.history(p)
		if err != nil {
			return nil, fmt.Errorf("read the history of %s: %w", p, err)
		}
		for _, ch := range h {
			hash := ch.Commit.Hash
			if seen[hash] || rg.baseAnc[hash] || !rg.headAnc[hash] || ch.Commit.Shallow {
				continue
			}
			seen[hash] = true
			commits = append(commits, ch.Commit)
		}
	}
	// Oldest first: the histories list the newest first, each by time.
	slices.SortStableFunc(commits, func(a, b *gitrepo.Commit) int { return a.Committer.When.Compare(b.Committer.When) })
	at := func(commit string) (status string, ledger []byte, err error) {
		file, err := rg.g.FileAt(commit, issuePath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			status = string(domain.StatusOpen) // an issue starts open
		case err != nil:
			return "", nil, err
		default:
			status = statusOf(file)
		}
		ledger, err = rg.g.FileAt(commit, ledgerPath)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return status, ledger, err
	}
	step := func(commit string, parents []string, status string, ledger []byte) (statusStep, error) {
		st := statusStep{commit: commit, status: status}
		if len(parents) == 0 {
			st.parents = []string{string(domain.StatusOpen)} // a root commit
		}
		held := map[string]bool{}
		for _, p := range parents {
			ps, pl, err := at(p)
			if err != nil {
				return st, err
			}
			st.parents = append(st.parents, ps)
			for _, l := range audit.ReadLedgerLines(pl) {
				held[l.Text] = true
			}
		}
		for _, l := range audit.ReadLedgerLines(ledger) {
			if !l.Repeat && l.Err == nil && !held[l.Text] {
				st.added = append(st.added, l.Entry)
			}
		}
		return st, nil
	}
	for _, cm := range commits {
		hash := cm.Hash
		file, err := rg.g.FileAt(hash, issuePath)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted here: the links rules speak of that
		}
		if err != nil {
			return nil, err
		}
		ledger, err := rg.g.FileAt(hash, ledgerPath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		st, err := step(hash, cm.Parents, statusOf(file), ledger)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	if c.head.Commit == "" {
		// The changes not committed yet, on top of HEAD (and MERGE_HEAD).
		parents := []string{"HEAD"}
		if c.merging {
			parents = append(parents, "MERGE_HEAD")
		}
		p := repo.TodosDir + "/" + repo.IssuesDir + "/" + id + ".md"
		file, err := c.head.Read(p)
		if err != nil {
			return steps, nil
		}
		ledger, _ := c.head.Read(c.ledgerPath(id))
		hs, hl, err := at("HEAD")
		if err != nil {
			return nil, err
		}
		if c.merging || hs != statusOf(file) || !bytes.Equal(hl, ledger) {
			st, err := step("", parents, statusOf(file), ledger)
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
		}
	}
	return steps, nil
}

// judgeStatusStep checks one step: with no transition added, the status is
// one its parents gave; with transitions, they run from a status a parent
// gave (or one an earlier transition of the step reached), in the order of
// their times, and the status is where the last one put it.
func (c *checker) judgeStatusStep(is *repo.Issue, st statusStep) {
	if st.status == "" {
		return // an unreadable file is reported by parseAll
	}
	var moves []audit.Entry
	for _, i := range audit.TimeOrder(st.added) {
		if _, _, ok := st.added[i].Transition(); ok {
			moves = append(moves, st.added[i])
		}
	}
	was := uniqueSorted(st.parents)
	if len(moves) == 0 {
		if !slices.Contains(st.parents, st.status) {
			c.add(is.Path, c.frontmatterLine(is.Path, "status"), RuleStatusTransition, "status changed from %s to %s %s, and the ledger records no transition; statuses move only through td (start, review, approve, reject, close, block, reopen), which the review policy judges: restore status: %s and run the td command",
				strings.Join(was, " or "), st.status, st.where(), st.parents[0])
		}
		return
	}
	had := map[string]bool{}
	for _, p := range st.parents {
		had[p] = true
	}
	last := ""
	for _, e := range moves {
		from, to, _ := e.Transition()
		if from != "" && !had[from] {
			// A status the issue never had, as td recorded it: someone
			// set it by hand before td moved it on.
			c.add(c.ledgerPath(is.ID), c.ledgerLineOf(is.ID, e), RuleStatusTransition, "%s by %s moved %s from %s, a status it never had %s (it was %s); statuses move only through td, so restore status: %s and run the td command",
				e.Action, orNone(e.Session), is.ID, from, st.where(), domain.QuoteList(was), st.parents[0])
			return
		}
		had[to] = true
		last = to
	}
	if st.status != last {
		c.add(is.Path, c.frontmatterLine(is.Path, "status"), RuleStatusTransition, "status is %s %s, but the last transition the ledger recorded there moved it to %s; restore status: %s, or make the change with td",
			st.status, st.where(), last, last)
	}
}

// statusOf reads the status an issue file's frontmatter states, "" when it
// states none td can read.
func statusOf(file []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(file))
	sc.Buffer(make([]byte, 0, 4096), len(file)+1)
	for n := 0; sc.Scan(); n++ {
		line := sc.Text()
		if n > 0 && strings.TrimRight(line, " \r") == "---" {
			return ""
		}
		if v, ok := strings.CutPrefix(line, "status:"); ok {
			v = strings.TrimSpace(v)
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// ledgerLineOf is the line of issue id's ledger in the head that holds e,
// 0 when it cannot be told.
func (c *checker) ledgerLineOf(id string, e audit.Entry) int {
	for i, x := range c.ledgers[id] {
		if x.TS.Equal(e.TS) && x.Session == e.Session && x.Action == e.Action && fmt.Sprint(x.Details) == fmt.Sprint(e.Details) {
			data, err := c.head.Read(c.ledgerPath(id))
			if err != nil {
				return 0
			}
			texts := c.ledgerTexts(id)
			if i >= len(texts) {
				return 0
			}
			for _, l := range audit.ReadLedgerLines(data) {
				if l.Text == texts[i] {
					return l.N
				}
			}
		}
	}
	return 0
}

// uniqueSorted returns the distinct strings of list, sorted.
func uniqueSorted(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
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
