package command

import (
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// StatusOptions are td status's inputs, as parsed from the command line.
type StatusOptions struct {
	// Session is --session: whose status to show ("" for the default).
	Session string
}

// statusCommand is td status. runF, when not nil, replaces runStatus.
func (r *runner) statusCommand(runF func(*StatusOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "who you are, your bound issue, and what awaits your review",
		Description: `Examples:
   td status
   td status --json`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &StatusOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runStatus(o)
		},
	}
}

// runStatus shows the session, its bound issue's checklist, the issues
// awaiting its review and those it submitted.
func (r *runner) runStatus(o *StatusOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	// A clone that never ran td init merges issue files without td's
	// driver; nothing else would tell.
	if g, err := s.GitRepo(); err == nil && g != nil && !repo.MergeDriverRegistered(g) {
		r.st.warnf("this clone does not register td's merge driver, so git merges issue files line by line; td doctor --fix registers it")
	}
	bound, err := s.BoundIssue(se)
	if err != nil {
		return err
	}
	var view *todos.TodoResult
	if bound != "" {
		if view, err = todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoView}); err != nil {
			r.st.warnf("bound issue %s: %v", bound, err)
			view = nil
		}
	}
	awaiting, perrs, err := issues.Reviewable(s, se)
	if err != nil {
		return err
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	submitted, err := issues.Submitted(s, se)
	if err != nil {
		return err
	}
	elsewhere := r.claimsElsewhere(s, se)
	return r.st.export(func() any {
		out := map[string]any{"session": r.sessionJSON(s, se, se.ID), "bound": nil,
			"awaiting_review": toReviewableJSON(s, awaiting)}
		if len(elsewhere.list) > 0 {
			cl := []*claimJSON{}
			for _, c := range elsewhere.list {
				cl = append(cl, toClaimJSON(c, c.Expired(elsewhere.now)))
			}
			out["claims_elsewhere"] = cl
		}
		if view != nil {
			s.FillUpdated([]*repo.Issue{view.Issue})
			out["bound"] = map[string]any{"issue": toIssueJSON(view.Issue), "summary": markdown.Summarize(view.Items)}
		}
		sub := []issueJSON{}
		s.FillUpdated(submitted)
		for _, is := range submitted {
			sub = append(sub, toIssueJSON(is))
		}
		out["submitted"] = sub
		return out
	}, func() error {
		if se.ID == "" {
			r.st.printf("No session yet: td starts one (%s, %s) at your first change\n", s.EffectiveRole(se), safe(se.Name))
		} else {
			r.st.printf("Session %s (%s, %s)\n", se.ID, s.EffectiveRole(se), safe(se.Name))
		}
		switch {
		case view != nil:
			r.st.printf("Bound to %s %q (%s): %s\n", view.Issue.ID, view.Issue.Title, view.Issue.Status, summaryLine(markdown.Summarize(view.Items)))
		case bound != "":
			r.st.printf("Bound to %s (unreadable)\n", bound)
		default:
			r.st.printf("Not bound to an issue.\n")
		}
		r.st.printf("\nAwaiting your review (%d):\n", len(awaiting))
		if len(awaiting) == 0 {
			r.st.printf("  nothing\n")
		}
		r.printReviewable(awaiting, "  ")
		r.st.printf("\nSubmitted by you, in review (%d):\n", len(submitted))
		if len(submitted) == 0 {
			r.st.printf("  nothing\n")
		}
		for _, is := range submitted {
			r.st.printf("  %s  %s  %s\n", r.st.paint(ansiBold, is.ID), is.Priority, safe(is.Title))
		}
		if len(elsewhere.list) > 0 {
			r.st.printf("\nClaimed by other sessions, in other work trees or clones (%d):\n", len(elsewhere.list))
			for _, c := range elsewhere.list {
				r.st.printf("  %s  %s\n", r.st.paint(ansiBold, c.Issue), safe(claimLine(elsewhere.set, c, c.Expired(elsewhere.now))))
			}
		}
		return nil
	})
}

// otherClaims are the claims td status lists: other sessions' claims held
// in another work tree or on another machine, which this work tree's
// issue files do not show.
type otherClaims struct {
	set  *claims.Set
	list []*domain.Claim
	now  time.Time
}

// claimsElsewhere gathers the claims td status lists.
func (r *runner) claimsElsewhere(s *repo.Store, se *repo.Session) otherClaims {
	ic := r.loadIssueClaims(s)
	out := otherClaims{set: ic.set, now: ic.now}
	if ic.set == nil || ic.set.Len() == 0 {
		return out
	}
	for _, c := range ic.set.All() {
		if c.Session != se.ID && (c.Worktree != ic.set.Here || c.Host != ic.set.HereHost) && !closedHere(s, c.Issue) {
			out.list = append(out.list, c)
		}
	}
	return out
}

// closedHere reports whether the issue is closed in this work tree, where
// no claim on it is shown (claims.Set.Shown). An issue this work tree
// lacks, or cannot read, is not.
func closedHere(s *repo.Store, id string) bool {
	if !repo.ValidIssueID(id) {
		return false
	}
	is, err := s.ReadIssueFile(id)
	return err == nil && is.Status == domain.StatusClosed
}
