package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/todos"
)

// TestOneVerdictSignOff: who may sign an issue off, for every role, with
// and without acceptance criteria, with agent_approval on and off in the
// base's config. A lead agent files the issue, the operator writes its
// criteria, a worker agent implements it; then a reviewer asks. What td
// approve accepts is made with td and td check --base must accept it; what
// it refuses is typed into the ledger, as an agent with a shell could, and
// td check --base must flag it with the same refusal.
func TestOneVerdictSignOff(t *testing.T) {
	type world struct {
		g                    *repotest.GitStore
		operator, lead, peer *repo.Session
		member               *repo.Session
		memberStore          *repo.Store
	}
	reviewers := []struct {
		name   string
		reason string
		pick   func(w *world) (*repo.Store, *repo.Session)
	}{
		{"the operator", "", func(w *world) (*repo.Store, *repo.Session) { return w.g.S, w.operator }},
		{"a member", "", func(w *world) (*repo.Store, *repo.Session) { return w.memberStore, w.member }},
		{"the lead agent, its creator, with a reason", "read the diff", func(w *world) (*repo.Store, *repo.Session) { return w.g.S, w.lead }},
		{"an uninvolved root agent", "", func(w *world) (*repo.Store, *repo.Session) { return w.g.S, w.peer }},
	}
	for _, criteria := range []bool{false, true} {
		for _, agentApproval := range []bool{true, false} {
			for _, r := range reviewers {
				name := fmt.Sprintf("%s/criteria=%t/agent_approval=%t", r.name, criteria, agentApproval)
				t.Run(name, func(t *testing.T) {
					g := repotest.NewGitStore(t)
					w := &world{g: g, operator: repotest.Actor(t, g.S)}
					if !agentApproval {
						off := false
						if _, err := g.S.SetFeature(w.operator, policy.AgentApproval, &off); err != nil {
							t.Fatal(err)
						}
					}
					var err error
					if w.lead, err = g.S.StartSession(repo.StartOptions{Agent: "lead"}); err != nil {
						t.Fatal(err)
					}
					if w.peer, err = g.S.StartSession(repo.StartOptions{Agent: "reviewer"}); err != nil {
						t.Fatal(err)
					}
					is, err := issues.Create(g.S, w.lead, issues.CreateOptions{Title: "Sign in"})
					if err != nil {
						t.Fatal(err)
					}
					if criteria {
						if _, err := todos.Apply(g.S, w.operator, todos.TodoRequest{Op: todos.TodoAdd, Issue: is.ID, Kind: "criterion", Items: []string{"A user can sign in"}}); err != nil {
							t.Fatal(err)
						}
					}
					w.memberStore, err = repo.Open(g.Dir, repo.Options{Now: func() time.Time { return repotest.Clock }, Env: func(k string) string {
						return map[string]string{"GIT_AUTHOR_NAME": "Carol", "GIT_AUTHOR_EMAIL": "carol@example.com"}[k]
					}})
					if err != nil {
						t.Fatal(err)
					}
					w.member = repotest.Actor(t, w.memberStore)
					g.Commit("File the work")
					g.Git("checkout", "-q", "-b", "work")

					worker, err := g.S.StartSession(repo.StartOptions{Agent: "worker"})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := issues.Start(g.S, worker, is.ID); err != nil {
						t.Fatal(err)
					}
					if criteria {
						if _, err := todos.Apply(g.S, worker, todos.TodoRequest{Op: todos.TodoDone, Targets: []string{"sign in"}}); err != nil {
							t.Fatal(err)
						}
					}
					if _, err := issues.Review(g.S, worker, is.ID, issues.TransitionOptions{}); err != nil {
						t.Fatal(err)
					}
					g.Commit("Implemented")

					g.Reopen()
					s, reviewer := r.pick(w)
					if s != g.S {
						if s, err = repo.Open(g.Dir, repo.Options{Now: func() time.Time { return repotest.Clock }, Env: func(k string) string {
							return map[string]string{"GIT_AUTHOR_NAME": "Carol", "GIT_AUTHOR_EMAIL": "carol@example.com"}[k]
						}}); err != nil {
							t.Fatal(err)
						}
					}
					rv, err := issues.NewVerdicts(s)
					if err != nil {
						t.Fatal(err)
					}
					current, err := s.ReadIssueFile(is.ID)
					if err != nil {
						t.Fatal(err)
					}
					d, err := rv.Judge(current, reviewer, issues.Ask{Reason: r.reason})
					if err != nil {
						t.Fatal(err)
					}
					// What the rules say, as the spec puts them.
					wantAllowed := true
					switch {
					case reviewer.IsAgent() && !agentApproval:
						wantAllowed = false
					case criteria && s.EffectiveRole(reviewer) != "operator":
						wantAllowed = false
					}
					if d.Allowed != wantAllowed {
						t.Fatalf("Judge: %+v; want allowed %v", d, wantAllowed)
					}
					if d.Allowed {
						if _, err := issues.Approve(s, reviewer, is.ID, issues.TransitionOptions{Reason: r.reason}); err != nil {
							t.Fatalf("Judge allowed it, td approve refused: %v", err)
						}
					} else {
						if _, err := issues.Approve(s, reviewer, is.ID, issues.TransitionOptions{Reason: r.reason}); err == nil || !strings.Contains(err.Error(), d.Refusal) {
							t.Fatalf("Judge refused it (%s), td approve said %v", d.Refusal, err)
						}
						p := filepath.Join(g.Dir, ".todos", "history", is.ID+".jsonl")
						f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
						if err != nil {
							t.Fatal(err)
						}
						fmt.Fprintf(f, `{"ts":"2026-11-21T10:00:00Z","session":"%s","action":"approved","from":"in_review","policy":"balanced","to":"closed","reason":%q}`+"\n", reviewer.ID, r.reason)
						f.Close()
						ip := filepath.Join(g.Dir, ".todos", "issues", is.ID+".md")
						data, _ := os.ReadFile(ip)
						data = []byte(strings.Replace(strings.Replace(string(data), "status: in_review", "status: closed", 1), `resolution: ""`, "resolution: done", 1))
						os.WriteFile(ip, data, 0o644)
					}
					g.CommitAs(reviewer.Author, "approve")
					g.Reopen()
					rep, err := Check(g.S, CheckOptions{Base: "main"})
					if err != nil {
						t.Fatal(err)
					}
					if d.Allowed && !rep.OK() {
						t.Errorf("td approve accepted it and td check --base refuses it: %+v", rep.Violations)
					}
					if !d.Allowed && (len(rep.Violations) != 1 || !strings.Contains(rep.Violations[0].Message, d.Refusal)) {
						t.Errorf("td approve refused it (%s) and td check --base says %+v", d.Refusal, rep.Violations)
					}
				})
			}
		}
	}
}
