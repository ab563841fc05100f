package harness

import (
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/sessions"
	"github.com/tdproject/td/repo/todos"
)

// TestApprovalDenial: the guard judges an agent's td approve by the
// decision td approve makes, as the agent's own session, and adds only
// that the command must act as that session.
func TestApprovalDenial(t *testing.T) {
	s := repotest.NewStore(t)
	op := repotest.Actor(t, s)
	start := func(agent string) *repo.Session {
		se, err := s.StartSession(repo.StartOptions{Agent: domain.AgentPath(agent)})
		if err != nil {
			t.Fatal(err)
		}
		return se
	}
	lead, worker := start("lead"), start("worker")
	inReview := func(title string, criterion string) string {
		is, err := issues.Create(s, op, issues.CreateOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		if criterion != "" {
			if _, err := todos.Apply(s, op, todos.TodoRequest{Op: todos.TodoAdd, Issue: is.ID, Kind: "criterion", Items: []string{criterion}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := issues.Start(s, worker, is.ID); err != nil {
			t.Fatal(err)
		}
		if criterion != "" {
			if _, err := sessions.Bind(s, worker, is.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := todos.Apply(s, worker, todos.TodoRequest{Op: todos.TodoDone, Targets: []string{criterion}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := issues.Review(s, worker, is.ID, issues.TransitionOptions{}); err != nil {
			t.Fatal(err)
		}
		return is.ID
	}
	plain := inReview("Rate limit", "")
	open, err := issues.Create(s, op, issues.CreateOptions{Title: "Dark mode"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		se      *repo.Session
		command string
		want    string // a part of the denial; "" lets it run
	}{
		{"the lead, as itself", lead, "td approve " + plain + " --session " + lead.ID, ""},
		{"the lead, naming no session", lead, "td approve " + plain + " --reason 'read it'",
			"td acts as the checkout's session, a person's, unless the command names yours: run td approve " + plain + " --session " + lead.ID + " --reason 'read it'."},
		{"the lead, clearing TD_SESSION", lead, "TD_SESSION= td approve " + plain,
			"the command clears TD_SESSION"},
		{"the lead, as another session", lead, "td approve " + plain + " --session " + op.ID,
			"the command names " + op.ID + ", which is not your session"},
		{"the lead, as itself through TD_SESSION", lead, "TD_SESSION=" + lead.ID + " td approve " + plain, ""},
		{"the worker, its implementer", worker, "td approve " + plain + " --session " + worker.ID,
			"implements " + plain + "; a different person or agent must approve it."},
		{"an issue not in review", lead, "td approve " + open.ID + " --session " + lead.ID,
			"cannot approve " + open.ID + ": it is open"},
		{"an issue td cannot find is td approve's to report", lead, "td approve td-zzzzzz --session " + lead.ID, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ApprovalDenial(s, c.se, Approvals(c.command))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == "" && got != "":
				t.Errorf("denied %q", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("got %q, want a denial holding %q", got, c.want)
			}
		})
	}
	// The operator's criteria: the lead is denied with the policy's
	// sentence, whoever it names.
	crit := inReview("Export", "Every column is exported")
	got, err := ApprovalDenial(s, lead, Approvals("td approve "+crit+" --session "+lead.ID))
	if err != nil || !strings.Contains(got, "has acceptance criteria, the operator's definition of done, and only an operator signs them off") {
		t.Errorf("criteria: got %q, %v", got, err)
	}
}
