package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
)

// TestOneVerdictLateOperator: whatever order a person's session and an
// agent's start of the work reach the branch in, td approve accepts
// exactly what td check --base then accepts. An approval td approve
// accepts is made with td and must pass; one it refuses is typed into the
// ledger, as an agent with a shell could, and must be flagged. The issue
// is Bob's, so the approval needs no exception and the late-operator rule
// alone decides.
func TestOneVerdictLateOperator(t *testing.T) {
	type world struct {
		g     *repotest.GitStore
		lead  *repo.Session // Op's session from before the work
		agent *repo.Session // an agent of Op's identity
		id    string
	}
	person := func(w *world) *repo.Session {
		w.g.T.Helper()
		se, err := w.g.S.StartSession(repo.StartOptions{Name: "lead-2"})
		if err != nil {
			w.g.T.Fatal(err)
		}
		return se
	}
	work := func(w *world) {
		w.g.T.Helper()
		if _, err := issues.Start(w.g.S, w.agent, w.id); err != nil {
			w.g.T.Fatal(err)
		}
		if _, err := issues.Review(w.g.S, w.agent, w.id, issues.TransitionOptions{}); err != nil {
			w.g.T.Fatal(err)
		}
	}
	rows := []struct {
		name  string
		steps func(w *world) *repo.Session // on the branch; returns the reviewer
		late  bool                         // td approve refuses it
	}{
		{"the session the base has", func(w *world) *repo.Session { work(w); w.g.Commit("work"); return w.lead }, false},
		{"a new session after the committed work", func(w *world) *repo.Session { work(w); w.g.Commit("work"); return person(w) }, true},
		{"a new session beside uncommitted work", func(w *world) *repo.Session { work(w); return person(w) }, false},
		{"a new session committed before the work", func(w *world) *repo.Session {
			se := person(w)
			w.g.Commit("a session")
			work(w)
			w.g.Commit("work")
			return se
		}, false},
		{"a new session committed after the work", func(w *world) *repo.Session {
			work(w)
			w.g.Commit("work")
			se := person(w)
			w.g.Commit("a session")
			return se
		}, true},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			g := repotest.NewGitStore(t)
			w := &world{g: g, lead: repotest.Actor(t, g.S)}
			bob, err := repo.Open(g.Dir, repo.Options{Now: func() time.Time { return repotest.Clock }, Env: func(k string) string {
				return map[string]string{"GIT_AUTHOR_NAME": "Bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}[k]
			}})
			if err != nil {
				t.Fatal(err)
			}
			is, err := issues.Create(bob, repotest.Actor(t, bob), issues.CreateOptions{Title: "Sign in"})
			if err != nil {
				t.Fatal(err)
			}
			w.id = is.ID
			if w.agent, err = g.S.StartSession(repo.StartOptions{Agent: "primary"}); err != nil {
				t.Fatal(err)
			}
			g.Commit("File the work")
			g.Git("checkout", "-q", "-b", "work")
			reviewer := r.steps(w)

			g.Reopen()
			rv, err := issues.NewVerdicts(g.S)
			if err != nil {
				t.Fatal(err)
			}
			is, err = g.S.ReadIssueFile(w.id)
			if err != nil {
				t.Fatal(err)
			}
			d, err := rv.Judge(is, reviewer, issues.Ask{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed == r.late {
				t.Fatalf("Judge: %+v; want late %v", d, r.late)
			}
			if d.Allowed {
				if _, err := issues.Approve(g.S, reviewer, w.id, issues.TransitionOptions{}); err != nil {
					t.Fatalf("Judge allowed it, td approve refused: %v", err)
				}
			} else {
				if !strings.Contains(d.Refusal, "first seen after") {
					t.Fatalf("refused for another reason: %s", d.Refusal)
				}
				// Typed by hand: the line td approve would have written.
				p := filepath.Join(g.Dir, ".todos", "history", w.id+".jsonl")
				f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(f, `{"ts":"2026-11-21T10:00:00Z","session":"%s","action":"approved","from":"in_review","policy":"balanced","to":"closed"}`+"\n", reviewer.ID)
				f.Close()
				ip := filepath.Join(g.Dir, ".todos", "issues", w.id+".md")
				data, _ := os.ReadFile(ip)
				data = []byte(strings.Replace(strings.Replace(string(data), "status: in_review", "status: closed", 1), `resolution: ""`, "resolution: done", 1))
				os.WriteFile(ip, data, 0o644)
			}
			g.Commit("approve")
			g.Reopen()
			rep, err := Check(g.S, CheckOptions{Base: "main"})
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed && !rep.OK() {
				t.Errorf("td approve accepted it and td check --base refuses it: %+v", rep.Violations)
			}
			if !d.Allowed && (len(rep.Violations) != 1 || !strings.Contains(rep.Violations[0].Message, "first seen after")) {
				t.Errorf("td approve refused it (%s) and td check --base says %+v", d.Refusal, rep.Violations)
			}
		})
	}
}
