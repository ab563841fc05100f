package todos_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/sessions"
	"github.com/tdproject/td/repo/todos"
)

// proposalWorld is a store without git whose clock the test moves, with an
// operator, an issue, a root agent bound to it and one of its subagents.
type proposalWorld struct {
	s             *repo.Store
	now           *time.Time
	op, root, sub *repo.Session
	issue         string
}

func newProposalWorld(t *testing.T) *proposalWorld {
	t.Helper()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	opts := repo.Options{Now: func() time.Time { return now }, Env: func(k string) string { return env[k] }}
	dir := t.TempDir()
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := &proposalWorld{s: s, now: &now, op: repotest.Actor(t, s)}
	is, err := issues.Create(s, w.op, issues.CreateOptions{Title: "Sign in with GitHub"})
	if err != nil {
		t.Fatal(err)
	}
	w.issue = is.ID
	w.root = w.start(t, "primary")
	if _, err := sessions.Bind(s, w.root, w.issue); err != nil {
		t.Fatal(err)
	}
	if _, err := todos.Apply(s, w.root, todos.TodoRequest{Op: todos.TodoSet, Items: []string{"Write the callback"}}); err != nil {
		t.Fatal(err)
	}
	w.sub = w.start(t, "primary.subagents.ui")
	return w
}

func (w *proposalWorld) start(t *testing.T, agent string) *repo.Session {
	t.Helper()
	*w.now = w.now.Add(time.Minute)
	se, err := w.s.StartSession(repo.StartOptions{Agent: domain.AgentPath(agent)})
	if err != nil {
		t.Fatal(err)
	}
	return se
}

func (w *proposalWorld) body(t *testing.T) string {
	t.Helper()
	is, err := w.s.ReadIssueFile(w.issue)
	if err != nil {
		t.Fatal(err)
	}
	return string(is.Doc.Body)
}

func (w *proposalWorld) actions(t *testing.T) []string {
	t.Helper()
	entries, errs, err := w.s.Ledger(w.issue)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Action)
	}
	return out
}

func TestProposeWaitsThenAcceptAddsWithOrigin(t *testing.T) {
	w := newProposalWorld(t)
	before := w.body(t)
	res, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{" Login button ", "Colour tokens"}})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Proposal
	if !strings.HasPrefix(p.ID, "p") || len(p.ID) != 1+todos.ProposalSuffixLen || p.State != policy.ProposalPending ||
		p.Phase != "ui" || p.Agent != "primary.subagents.ui" || !slices.Equal(p.Items, []string{"Login button", "Colour tokens"}) {
		t.Fatalf("proposal = %+v", p)
	}
	if res.Via == nil || res.Via.ID != w.root.ID || res.Issue.ID != w.issue || res.Accepted != nil {
		t.Fatalf("propose went to %s via %v, accepted %v", res.Issue.ID, res.Via, res.Accepted)
	}
	if w.body(t) != before {
		t.Fatalf("a waiting proposal changed the issue file")
	}
	view, err := todos.Apply(w.s, w.root, todos.TodoRequest{Op: todos.TodoView})
	if err != nil || len(view.Proposals) != 1 || view.Proposals[0].ID != p.ID {
		t.Fatalf("view proposals = %+v, %v", view.Proposals, err)
	}

	dec, err := todos.AcceptProposal(w.s, w.root, "", "colour")
	if err != nil {
		t.Fatal(err)
	}
	if dec.Proposal.State != policy.ProposalAccepted || !slices.Equal(dec.Added, p.Items) || len(dec.Skipped) != 0 {
		t.Fatalf("decision = %+v", dec)
	}
	want := "### ui\n- [ ] Login button\n- [ ] Colour tokens\n"
	if body := w.body(t); !strings.HasSuffix(body, want) {
		t.Fatalf("body after accept:\n%s\nwant it to end with:\n%s", body, want)
	}
	// The heading names no origin: the ledger's sublist_accepted keeps
	// whose steps they are.
	for _, it := range dec.Todo.Items[1:] {
		if it.Origin != "" {
			t.Errorf("%q has origin %q", it.Text, it.Origin)
		}
	}
	if got := w.actions(t); !slices.Equal(got[len(got)-2:], []string{audit.ActionTodoProposed, audit.ActionSublistAccepted}) {
		t.Fatalf("ledger actions = %v", got)
	}
	if _, err := todos.AcceptProposal(w.s, w.root, "", p.ID); repo.CodeOf(err) != repo.CodeRefused {
		t.Fatalf("accepting twice = %v; want a refusal", err)
	}
	view, _ = todos.Apply(w.s, w.root, todos.TodoRequest{Op: todos.TodoView})
	if len(view.Proposals) != 0 {
		t.Fatalf("an accepted proposal still waits: %+v", view.Proposals)
	}
}

func TestAcceptJoinsThePhaseOfItsName(t *testing.T) {
	w := newProposalWorld(t)
	if _, err := todos.Apply(w.s, w.root, todos.TodoRequest{Op: todos.TodoAdd, Phase: "Frontend", Items: []string{"Login button"}}); err != nil {
		t.Fatal(err)
	}
	res, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Colour tokens"}, Phase: " frontEND "})
	if err != nil {
		t.Fatal(err)
	}
	if res.Heading != "Frontend" {
		t.Fatalf("propose would join %q, want Frontend", res.Heading)
	}
	dec, err := todos.AcceptProposal(w.s, w.root, "", res.Proposal.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := "### Frontend\n- [ ] Login button\n- [ ] Colour tokens\n"
	if body := w.body(t); !strings.HasSuffix(body, want) || strings.Count(body, "###") != 1 {
		t.Fatalf("body after accept:\n%s\nwant it to end with:\n%s", body, want)
	}
	if dec.Heading != "Frontend" || dec.Proposal.Into != "Frontend" {
		t.Fatalf("decision heading %q, into %q", dec.Heading, dec.Proposal.Into)
	}
	list, err := todos.IssueProposals(w.s, w.issue)
	if err != nil || len(list) != 1 || list[0].Into != "Frontend" || list[0].Agent != w.sub.Agent {
		t.Fatalf("proposals from the ledger = %+v, %v", list, err)
	}

	// A new phase carries the subagent; its next proposal joins it, and
	// the ledger needs no "into" since the heading names it.
	res, err = todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Screenshot"}, Phase: "Docs"})
	if err != nil || res.Heading != "Docs" {
		t.Fatalf("propose = %+v, %v", res, err)
	}
	if _, err := todos.AcceptProposal(w.s, w.root, "", res.Proposal.ID); err != nil {
		t.Fatal(err)
	}
	res, err = todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Describe the error page"}, Phase: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	dec, err = todos.AcceptProposal(w.s, w.root, "", res.Proposal.ID)
	// The heading names no subagent, so the ledger says where the steps
	// went.
	if err != nil || dec.Proposal.Into != "Docs" {
		t.Fatalf("into the phase its first proposal made: into %q, %v", dec.Proposal.Into, err)
	}
	if body := w.body(t); !strings.HasSuffix(body, "### Docs\n- [ ] Screenshot\n- [ ] Describe the error page\n") {
		t.Fatalf("body:\n%s", body)
	}
}

func TestAutoReviewAcceptsAtOnce(t *testing.T) {
	w := newProposalWorld(t)
	w.s.Config.Agents = map[string]repo.AgentConfig{"primary.subagents.ui": {TodoReview: policy.TodoReviewAuto}}
	res, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Login button"}, Phase: "Frontend"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted == nil || !res.Proposal.Auto || res.Proposal.State != policy.ProposalAccepted {
		t.Fatalf("auto proposal = %+v", res.Proposal)
	}
	if !strings.Contains(w.body(t), "### Frontend\n- [ ] Login button\n") {
		t.Fatalf("body:\n%s", w.body(t))
	}
	list, err := todos.IssueProposals(w.s, w.issue)
	if err != nil || len(list) != 1 || !list[0].Auto || list[0].DecidedBy != w.sub.ID {
		t.Fatalf("proposals from the ledger = %+v, %v", list, err)
	}
	// Another subagent of the same root is still reviewed.
	other := w.start(t, "primary.subagents.api")
	res, err = todos.Propose(w.s, other, todos.ProposeRequest{Items: []string{"Token endpoint"}})
	if err != nil || res.Accepted != nil {
		t.Fatalf("a subagent without auto: %+v, %v", res, err)
	}
}

func TestAcceptSkipsItemsAlreadyOnTheList(t *testing.T) {
	w := newProposalWorld(t)
	res, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Login button", "Colour tokens"}, Kind: "criterion"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := todos.Apply(w.s, w.op, todos.TodoRequest{Op: todos.TodoAdd, Issue: w.issue, Kind: "criterion", Items: []string{"colour  TOKENS"}}); err != nil {
		t.Fatal(err)
	}
	dec, err := todos.AcceptProposal(w.s, w.op, w.issue, res.Proposal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dec.Added, []string{"Login button"}) || !slices.Equal(dec.Skipped, []string{"Colour tokens"}) {
		t.Fatalf("added %v, skipped %v", dec.Added, dec.Skipped)
	}
	if !dec.Todo.ProposedCriteria {
		t.Errorf("an agent's criterion accepted is still a proposal the operator ratifies")
	}
	got := w.actions(t)
	if !slices.Equal(got[len(got)-2:], []string{audit.ActionSublistAccepted, audit.ActionCriterionAdded}) {
		t.Fatalf("ledger actions = %v", got)
	}
}

func TestProposeRefusals(t *testing.T) {
	w := newProposalWorld(t)
	cases := []struct {
		name string
		se   *repo.Session
		req  todos.ProposeRequest
		code repo.Code
	}{
		{"root agent", w.root, todos.ProposeRequest{Items: []string{"x"}}, repo.CodeRefused},
		{"operator", w.op, todos.ProposeRequest{Items: []string{"x"}}, repo.CodeRefused},
		{"nothing", w.sub, todos.ProposeRequest{}, repo.CodeInvalid},
		{"bad kind", w.sub, todos.ProposeRequest{Items: []string{"x"}, Kind: "wish"}, repo.CodeInvalid},
		{"criterion with a phase", w.sub, todos.ProposeRequest{Items: []string{"x"}, Kind: "criterion", Phase: "UI"}, repo.CodeInvalid},
		{"duplicate of the list", w.sub, todos.ProposeRequest{Items: []string{"write the callback"}}, repo.CodeInvalid},
		{"duplicate within", w.sub, todos.ProposeRequest{Items: []string{"a", "A"}}, repo.CodeInvalid},
		{"two lines", w.sub, todos.ProposeRequest{Items: []string{"a\nb"}}, repo.CodeInvalid},
	}
	for _, c := range cases {
		if _, err := todos.Propose(w.s, c.se, c.req); repo.CodeOf(err) != c.code {
			t.Errorf("%s: todos.Propose = %v; want code %s", c.name, err, c.code)
		}
	}
	if got := w.actions(t); slices.Contains(got, audit.ActionTodoProposed) {
		t.Fatalf("a refused proposal was recorded: %v", got)
	}
}

func TestProposalTarget(t *testing.T) {
	w := newProposalWorld(t)
	// A newer root session bound elsewhere takes over: it is the one that
	// started the subagent's conversation.
	second, err := issues.Create(w.s, w.op, issues.CreateOptions{Title: "Rate-limit the login endpoint"})
	if err != nil {
		t.Fatal(err)
	}
	newer := w.start(t, "primary")
	if _, err := sessions.Bind(w.s, newer, second.ID); err != nil {
		t.Fatal(err)
	}
	id, via, err := todos.ProposalTarget(w.s, w.sub)
	if err != nil || id != second.ID || via.ID != newer.ID {
		t.Fatalf("todos.ProposalTarget = %s via %v, %v; want %s via %s", id, via, err, second.ID, newer.ID)
	}
	// Two root sessions started in the same second on different issues:
	// td cannot tell, and says so.
	tied, err := w.s.StartSession(repo.StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.Bind(w.s, tied, w.issue); err != nil {
		t.Fatal(err)
	}
	if _, _, err := todos.ProposalTarget(w.s, w.sub); repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "started at the same time") {
		t.Fatalf("tied roots: %v", err)
	}
	// Sessions of another root agent never count.
	lone := w.start(t, "reviewer.subagents.docs")
	if _, _, err := todos.ProposalTarget(w.s, lone); repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "no session of its root agent reviewer is bound") {
		t.Fatalf("without a bound root: %v", err)
	}
	// The subagent's own binding, where td made one, wins.
	if err := w.s.SetBinding(w.sub.ID, w.issue); err != nil {
		t.Fatal(err)
	}
	if id, via, err := todos.ProposalTarget(w.s, w.sub); err != nil || id != w.issue || via != nil {
		t.Fatalf("own binding: %s via %v, %v", id, via, err)
	}
}

func TestDecideRefusals(t *testing.T) {
	w := newProposalWorld(t)
	a, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Login button", "Colour tokens"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Login form"}, Phase: "Forms"}); err != nil {
		t.Fatal(err)
	}
	other := w.start(t, "reviewer")
	if _, err := sessions.Bind(w.s, other, w.issue); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name           string
		se             *repo.Session
		issue, ref, rs string
		reject         bool
		code           repo.Code
		msg            string
	}{
		{name: "subagent", se: w.sub, ref: a.Proposal.ID, code: repo.CodeRefused, msg: "subagent sessions cannot accept or reject proposals"},
		{name: "another root", se: other, ref: a.Proposal.ID, code: repo.CodeRefused, msg: "only primary (the root agent of primary.subagents.ui) or an operator may accept"},
		{name: "ambiguous", se: w.root, ref: "login", code: repo.CodeAmbiguous, msg: "is in 2 waiting proposals"},
		{name: "unknown", se: w.root, ref: "logout", code: repo.CodeNotFound, msg: "no proposal matches \"logout\"; waiting on " + w.issue},
		{name: "empty", se: w.root, ref: " ", code: repo.CodeInvalid},
		{name: "reject without reason", se: w.root, ref: a.Proposal.ID, reject: true, code: repo.CodeInvalid},
		{name: "agent naming an issue", se: w.root, issue: w.issue, ref: a.Proposal.ID, code: repo.CodeRefused},
	}
	for _, c := range cases {
		var err error
		if c.reject {
			_, err = todos.RejectProposal(w.s, c.se, c.issue, c.ref, c.rs)
		} else {
			_, err = todos.AcceptProposal(w.s, c.se, c.issue, c.ref)
		}
		if repo.CodeOf(err) != c.code || !strings.Contains(errString(err), c.msg) {
			t.Errorf("%s: %v; want code %s and %q", c.name, err, c.code, c.msg)
		}
	}
	if _, err := todos.RejectProposal(w.s, w.root, "", "login form", "forms are out of scope"); err != nil {
		t.Fatal(err)
	}
	if _, err := todos.AcceptProposal(w.s, w.op, w.issue, "login form"); repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "was rejected") {
		t.Fatalf("accepting a rejected proposal: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestProposalsOf(t *testing.T) {
	ledger := strings.Join([]string{
		`{"ts":"2026-11-21T10:00:00Z","session":"ses_aaaaaaaa","action":"todo_proposed","agent":"primary.ui","items":["A","B"],"kind":"step","phase":"ui","proposal":"p111"}`,
		// The same ID proposed on another branch and merged by union.
		`{"ts":"2026-11-21T10:01:00Z","session":"ses_bbbbbbbb","action":"todo_proposed","agent":"primary.api","items":["C"],"kind":"criterion","proposal":"p111"}`,
		`{"ts":"2026-11-21T10:02:00Z","session":"ses_cccccccc","action":"sublist_accepted","agent":"primary.ui","items":["A"],"skipped":["B"],"proposal":"p111"}`,
		`{"ts":"2026-11-21T10:03:00Z","session":"ses_cccccccc","action":"sublist_rejected","agent":"primary.api","proposal":"p111","reason":"no"}`,
		// A decision naming no proposal, and an entry without one.
		`{"ts":"2026-11-21T10:04:00Z","session":"ses_cccccccc","action":"sublist_accepted","proposal":"p999"}`,
		`{"ts":"2026-11-21T10:05:00Z","session":"ses_cccccccc","action":"todo_proposed"}`,
		`{"ts":"2026-11-21T10:06:00Z","session":"ses_aaaaaaaa","action":"todo_proposed","agent":"primary.ui","items":["D"],"proposal":"p222","auto":true}`,
	}, "\n")
	entries, errs := audit.ParseLedger([]byte(ledger))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := todos.ProposalsOf(entries)
	if len(got) != 3 {
		t.Fatalf("got %d proposals: %+v", len(got), got)
	}
	if p := got[0]; p.State != policy.ProposalAccepted || !slices.Equal(p.Added, []string{"A"}) || p.DecidedBy != "ses_cccccccc" || p.Phase != "ui" {
		t.Errorf("first = %+v", p)
	}
	if p := got[1]; p.State != policy.ProposalRejected || p.Reason != "no" || p.Kind != "criterion" {
		t.Errorf("second = %+v", p)
	}
	if p := got[2]; p.State != policy.ProposalPending || p.Kind != "step" || p.Auto {
		t.Errorf("third = %+v", p)
	}
}

func TestConfigTodoReview(t *testing.T) {
	for _, c := range []struct {
		yaml, err string
	}{
		{yaml: "agents:\n  primary.subagents.ui: {todo_review: auto}\n"},
		{yaml: "agents:\n  primary.subagents.ui: {todo_review: sometimes}\n", err: `.todos/config.yaml: agents.primary.subagents.ui.todo_review "sometimes" must be review or auto`},
		{yaml: "agents:\n  Primary/UI: {todo_review: auto}\n", err: `.todos/config.yaml: agents: "Primary/UI" is not an agent path such as primary or primary.subagents.ui`},
	} {
		cfg, err := repo.ParseConfig(".todos/config.yaml", []byte(c.yaml))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseConfig(%q) = %v; want %s", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if cfg.TodoReview("primary.subagents.ui") != policy.TodoReviewAuto || cfg.TodoReview("primary.subagents.api") != policy.TodoReviewReview {
			t.Errorf("TodoReview: auto for the listed agent, review for the rest")
		}
	}
}

// A decision the policy refuses, inside the update, writes nothing.
func TestRefusedDecisionWritesNothing(t *testing.T) {
	w := newProposalWorld(t)
	res, err := todos.Propose(w.s, w.sub, todos.ProposeRequest{Items: []string{"Login button"}})
	if err != nil {
		t.Fatal(err)
	}
	other := w.start(t, "reviewer")
	if _, err := sessions.Bind(w.s, other, w.issue); err != nil {
		t.Fatal(err)
	}
	ledger := w.s.Path(repo.HistoryDir, w.issue+".jsonl")
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	body := w.body(t)
	if _, err := todos.AcceptProposal(w.s, other, "", res.Proposal.ID); repo.CodeOf(err) != repo.CodeRefused {
		t.Fatalf("another root agent accepting: %v; want a refusal", err)
	}
	if after, _ := os.ReadFile(ledger); string(after) != string(before) || w.body(t) != body {
		t.Fatalf("a refused decision changed the ledger or the issue")
	}
}
