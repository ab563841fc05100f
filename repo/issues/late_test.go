package issues

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// TestLateOperatorOrder: td approve finds a person's session late, as
// td check --base will, by the commits that bring the session's identity
// file and the agent's start to the branch: the branch being the commits
// since main. What is not committed yet comes with the next commit.
func TestLateOperatorOrder(t *testing.T) {
	type world struct {
		g     *repotest.GitStore
		lead  *repo.Session // the person's session from before the work
		agent *repo.Session // an agent of the same git identity
		id    string
	}
	start := func(w *world) {
		w.g.T.Helper()
		if _, err := Start(w.g.S, w.agent, w.id); err != nil {
			w.g.T.Fatal(err)
		}
	}
	person := func(w *world) *repo.Session {
		w.g.T.Helper()
		se, err := w.g.S.StartSession(repo.StartOptions{Name: "lead-2"})
		if err != nil {
			w.g.T.Fatal(err)
		}
		return se
	}
	rows := []struct {
		name string
		// steps run on the branch work, and return the reviewer.
		steps func(w *world) *repo.Session
		late  bool
	}{
		{"the session the base has", func(w *world) *repo.Session {
			start(w)
			w.g.Commit("work")
			return w.lead
		}, false},
		{"a new session, the start committed", func(w *world) *repo.Session {
			start(w)
			w.g.Commit("work")
			return person(w)
		}, true},
		{"a new session, nothing committed", func(w *world) *repo.Session {
			start(w)
			return person(w)
		}, false},
		{"a new session committed before the start", func(w *world) *repo.Session {
			se := person(w)
			w.g.Commit("a session")
			start(w)
			w.g.Commit("work")
			return se
		}, false},
		{"a new session committed after the start", func(w *world) *repo.Session {
			start(w)
			w.g.Commit("work")
			se := person(w)
			w.g.Commit("a session")
			return se
		}, true},
		{"a new session in the start's commit", func(w *world) *repo.Session {
			start(w)
			se := person(w)
			w.g.Commit("work")
			return se
		}, false},
		{"the start landed on main before the branch", nil, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			g := repotest.NewGitStore(t)
			w := &world{g: g, lead: repotest.Actor(t, g.S)}
			is, err := Create(g.S, w.lead, CreateOptions{Title: "Sign in"})
			if err != nil {
				t.Fatal(err)
			}
			w.id = is.ID
			if w.agent, err = g.S.StartSession(repo.StartOptions{Agent: "primary"}); err != nil {
				t.Fatal(err)
			}
			g.Commit("File the work")
			var reviewer *repo.Session
			if r.steps == nil {
				start(w)
				g.Commit("work on main")
				g.Git("checkout", "-q", "-b", "work")
				reviewer = person(w)
			} else {
				g.Git("checkout", "-q", "-b", "work")
				reviewer = r.steps(w)
			}
			g.Reopen()
			is, err = g.S.ReadIssueFile(w.id)
			if err != nil {
				t.Fatal(err)
			}
			var f ReviewInput
			if err := lateOperator(g.S, domain.RoleOperator, is, reviewer, &f); err != nil {
				t.Fatal(err)
			}
			switch {
			case r.late && f.LateAfter != w.agent.ID:
				t.Errorf("LateAfter = %q; want the agent %s", f.LateAfter, w.agent.ID)
			case r.late && reviewer != w.lead && f.LateEarlier != w.lead.ID:
				t.Errorf("LateEarlier = %q; want the lead's session %s, which the base has", f.LateEarlier, w.lead.ID)
			case !r.late && f.LateAfter != "":
				t.Errorf("LateAfter = %q; want none", f.LateAfter)
			}
			// A member (not listed as an operator) is not held to it.
			f = ReviewInput{}
			if err := lateOperator(g.S, domain.RoleAgent, is, reviewer, &f); err != nil || f.LateAfter != "" {
				t.Errorf("as a member: LateAfter = %q, %v; want none", f.LateAfter, err)
			}
		})
	}
}
