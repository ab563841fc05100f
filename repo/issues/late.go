package issues

import (
	"errors"
	"io/fs"
	"slices"

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
	if se.IsAgent() || !role.Person() {
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
		return err == nil && other.IsAgent() && domain.SameIdentity(other.Author, se.Author)
	}
	// A line that repeats an earlier one is the same entry arriving again
	// (a union merge after a squash): one entry, as td check reads it.
	lines := slices.DeleteFunc(audit.ReadLedgerLines(data), func(l audit.LedgerLine) bool { return l.Repeat || l.Err != nil })
	if !slices.ContainsFunc(lines, func(l audit.LedgerLine) bool { return agentOf(l.Entry) }) {
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
	inBase := map[string]bool{}
	for _, l := range audit.ReadLedgerLines(base) {
		inBase[l.Text] = true
	}
	for _, l := range lines {
		if inBase[l.Text] || !agentOf(l.Entry) {
			continue
		}
		// The first start on the branch by such an agent decides, as in
		// td check.
		started, err := v.Arrival(ledgerRel, l.Text)
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
			// One commit brought both: only its trailer blocks, a
			// squash's, can tell their order.
			c, err := v.Commit(started)
			if err != nil || !repo.StartedBefore(c, is.ID, l.Entry.Session, se.ID) {
				return err
			}
			appeared = ""
		}
		if appeared != "" {
			if before, err := v.Before(started, appeared); err != nil || !before {
				return err
			}
		}
		in.LateAfter = l.Entry.Session
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
