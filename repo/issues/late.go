package issues

import (
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// lateOperator tells the facts what td check --base will find of the
// late-operator rule for an approval se makes now (policy.Facts.LateAfter):
// whether se is a person's session whose identity file reaches the branch
// after an agent of the same git identity started the work on it. The
// branch is what CI judges (repo.BranchView): the commits since the
// default branch. Lines and files not committed yet arrive with the next
// commit: an identity file not committed yet comes after a start already
// committed, and beside a start not committed either.
func lateOperator(s *repo.Store, role domain.Role, is *repo.Issue, se *repo.Session, in *ReviewInput) error {
	if se.IsAgent() || role != domain.RoleOperator {
		return nil
	}
	ledgerRel := repo.HistoryDir + "/" + is.ID + ".jsonl"
	data, err := s.ReadRaw(repo.HistoryDir, is.ID+".jsonl")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// Most issues have no start by an agent of the reviewer's identity:
	// they are decided without reading history.
	agentOf := func(e audit.Entry) bool {
		if e.Action != audit.ActionStarted {
			return false
		}
		other, err := s.Session(e.Session)
		return err == nil && other.IsAgent() && other.Author == se.Author
	}
	lines := ledgerLines(data)
	if !slices.ContainsFunc(lines, func(l ledgerLine) bool { return l.ok && agentOf(l.entry) }) {
		return nil
	}
	v, err := s.BranchView()
	if err != nil || v == nil {
		return err
	}
	sessionRel := repo.SessionsDir + "/" + se.ID + ".yaml"
	if se.ID != "" {
		if inBase, err := v.InBase(sessionRel); err != nil || inBase {
			return err
		}
	}
	base, err := v.BaseFile(ledgerRel)
	if err != nil {
		return err
	}
	inBase := map[string]int{}
	for _, l := range ledgerLines(base) {
		inBase[l.text]++
	}
	seen := map[string]int{}
	for _, l := range lines {
		seen[l.text]++
		if !l.ok {
			continue
		}
		if inBase[l.text] > 0 {
			inBase[l.text]--
			continue
		}
		if !agentOf(l.entry) {
			continue
		}
		// The first start on the branch by such an agent decides, as in
		// td check.
		started, err := v.Arrival(ledgerRel, l.text, seen[l.text])
		if err != nil || started == "" {
			return err
		}
		appeared := ""
		if se.ID != "" {
			if appeared, err = v.FirstAdded(sessionRel); err != nil {
				return err
			}
		}
		if appeared == started {
			return nil
		}
		if appeared != "" {
			if before, err := v.Before(started, appeared); err != nil || !before {
				return err
			}
		}
		in.LateAfter = l.entry.Session
		for _, id := range s.SessionsOf(se.Actor()) {
			if id == se.ID {
				continue
			}
			if inBase, err := v.InBase(repo.SessionsDir + "/" + id + ".yaml"); err == nil && inBase {
				in.LateEarlier = id
				break
			}
		}
		return nil
	}
	return nil
}

// ledgerLine is one non-blank line of a ledger: its text, trimmed, and
// its entry when it parses.
type ledgerLine struct {
	text  string
	entry audit.Entry
	ok    bool
}

func ledgerLines(data []byte) []ledgerLine {
	var out []ledgerLine
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		ll := ledgerLine{text: t}
		if entries, errs := audit.ParseLedger([]byte(t)); len(errs) == 0 && len(entries) == 1 {
			ll.entry, ll.ok = entries[0], true
		}
		out = append(out, ll)
	}
	return out
}
