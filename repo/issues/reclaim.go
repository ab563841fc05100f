package issues

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// ReclaimResult says what td reclaim did.
type ReclaimResult struct {
	*claims.ReclaimResult
	// Issue is the issue as this work tree has it after the take-over,
	// nil when it is not here (claims name issues of other branches too).
	Issue *repo.Issue
	// Implementer is the session's predecessor as the issue's implementer
	// when td reclaim made the session implementer ("" for none), and
	// TookWork whether it did: an issue in progress, in review or blocked
	// passes to the reclaimer; an open one is the reclaimer's to td start.
	Implementer string
	TookWork    bool
	// Bound is true when the session, bound to no issue, was bound to it;
	// BoundElsewhere names the issue it stays bound to otherwise.
	Bound          bool
	BoundElsewhere string
}

// Reclaim takes over an issue whose claim's lease ended: the claim, with
// a claim_reclaimed security event naming the previous holder and the
// reason (required), and the work with it. Where the issue is in progress
// (or in review, or blocked) in this work tree, the session becomes its
// implementer and assignee, with a reclaimed ledger entry, in the
// transaction that records the event; a session bound to no issue is
// bound to it, as td start binds. Then td start and td unstart are the
// reclaimer's, and the review policy counts it among the implementers.
func Reclaim(s *repo.Store, se *repo.Session, ref, reason string) (*ReclaimResult, error) {
	out := &ReclaimResult{}
	res, err := claims.Reclaim(s, se, ref, reason, func(tx *repo.Tx, id string) error {
		if _, err := os.Lstat(s.IssuePath(id)); errors.Is(err, fs.ErrNotExist) {
			return nil // an issue of another branch: the claim is all there is here
		}
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		out.Issue = is
		switch is.Status {
		case domain.StatusInProgress, domain.StatusInReview, domain.StatusBlocked:
		default:
			return nil
		}
		want := "session:" + se.ID
		if is.Implementer == se.ID && is.Assignee == want {
			return nil
		}
		out.Implementer, out.TookWork = is.Implementer, true
		d := map[string]any{"implementer": map[string]any{"from": is.Implementer, "to": se.ID}}
		if is.Assignee != want {
			d["assignee"] = map[string]any{"from": is.Assignee, "to": want}
		}
		if err := repo.SetWord(is, "implementer", &is.Implementer, se.ID); err != nil {
			return err
		}
		if err := repo.SetWord(is, "assignee", &is.Assignee, want); err != nil {
			return err
		}
		return s.WriteIssue(tx, se, is, audit.ActionReclaimed, d, strings.TrimSpace(reason))
	})
	if err != nil {
		return nil, err
	}
	out.ReclaimResult = res
	if out.Issue == nil || out.Issue.Status == domain.StatusClosed {
		return out, nil
	}
	// As td start: the runtime is local state, written after the issue.
	err = s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		switch rt.BoundIssue {
		case "":
			rt.BoundIssue, rt.BoundBy, out.Bound = out.Issue.ID, repo.BoundByStart, true
		case out.Issue.ID:
		default:
			out.BoundElsewhere = rt.BoundIssue
		}
		return nil
	})
	if err != nil {
		s.Warnf("%s is reclaimed; the session was not bound to it: %v", out.Issue.ID, err)
	}
	return out, nil
}
