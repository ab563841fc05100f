package command

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

type todoItemJSON struct {
	Kind   domain.TodoKind   `json:"kind"`
	Status domain.TodoStatus `json:"status"`
	Text   string            `json:"text"`
	Phase  string            `json:"phase"`
	Origin domain.AgentPath  `json:"origin"`
	Notes  []string          `json:"notes"`
	Active bool              `json:"active"`
}

type todoFixJSON struct {
	Text string            `json:"text"`
	From domain.TodoStatus `json:"from"`
	To   domain.TodoStatus `json:"to"`
}

type todoJSON struct {
	Issue       todoIssueJSON  `json:"issue"`
	Items       []todoItemJSON `json:"items"`
	Summary     domain.Summary `json:"summary"`
	Changed     bool           `json:"changed"`
	Fixes       []todoFixJSON  `json:"fixes"`
	CriteriaMet bool           `json:"criteria_met"`
	// Proposals are the subagent proposals waiting for a decision: in view
	// output, and only when there are some.
	Proposals []proposalJSON `json:"proposals,omitempty"`
	// Stalls are the session's stall warnings after a mutation, when any.
	Stalls []policy.Stall `json:"stalls,omitempty"`
}

type todoIssueJSON struct {
	ID     string        `json:"id"`
	Title  string        `json:"title"`
	Status domain.Status `json:"status"`
}

// todoItemsJSON is the stable JSON shape of a checklist's items.
func todoItemsJSON(items []markdown.Item) []todoItemJSON {
	out := []todoItemJSON{}
	for _, it := range items {
		notes := it.Notes
		if notes == nil {
			notes = []string{}
		}
		out = append(out, todoItemJSON{Kind: it.Kind, Status: it.Status, Text: it.Text, Phase: it.Phase,
			Origin: it.Origin, Notes: notes, Active: it.Status == domain.TodoInProgress})
	}
	return out
}

// summaryLine is the one line printed under every list: the steps'
// counts, then the criteria's, each item counted once.
func summaryLine(s domain.Summary) string {
	var b strings.Builder
	if s.CriteriaTotal > 0 {
		b.WriteString("steps: ")
	}
	fmt.Fprintf(&b, "%d done, %d open, %d dropped, %d blocked", s.Done, s.Open, s.Dropped, s.Blocked)
	if s.CriteriaTotal > 0 {
		fmt.Fprintf(&b, "; criteria: %d of %d done", s.CriteriaDone, s.CriteriaTotal)
	}
	if s.Active != nil {
		fmt.Fprintf(&b, "; active: %q", s.Active.Text)
		if s.Active.Phase != "" {
			fmt.Fprintf(&b, " (%s)", s.Active.Phase)
		}
	} else {
		b.WriteString("; nothing in progress")
	}
	return b.String()
}

// todoJSONOf is the stable JSON shape of a todo operation's result.
func (r *runner) todoJSONOf(res *todos.TodoResult) todoJSON {
	out := todoJSON{
		Issue:   todoIssueJSON{ID: res.Issue.ID, Title: res.Issue.Title, Status: res.Issue.Status},
		Items:   []todoItemJSON{},
		Summary: markdown.Summarize(res.Items), Changed: res.Changed, Fixes: []todoFixJSON{}, CriteriaMet: res.CriteriaMet,
	}
	out.Items = todoItemsJSON(res.Items)
	for _, f := range res.Fixes {
		out.Fixes = append(out.Fixes, todoFixJSON{Text: f.Text, From: f.From, To: f.To})
	}
	if len(res.Proposals) > 0 {
		out.Proposals = proposalsJSONOf(res.Proposals)
	}
	out.Stalls = res.Stalls
	return out
}

// printTodosFor is printTodos for a list named with --issue issueFlag, which
// the suggested commands repeat.
func (r *runner) printTodosFor(res *todos.TodoResult, issueFlag string) error {
	return r.st.export(func() any { return r.todoJSONOf(res) }, func() error { return r.todosText(res, issueFlag) })
}

// todosText prints a todo operation's list for a person: the repairs made,
// the items as the file shows them, the summary line and what waits.
func (r *runner) todosText(res *todos.TodoResult, issueFlag string) error {
	sum := markdown.Summarize(res.Items)
	for _, f := range res.Fixes {
		// Promoting the first pending step is routine and shows in the
		// list; a second in-progress item written by hand is worth a word.
		if f.To != domain.TodoInProgress {
			r.st.warnf("%s", fixMessage(f))
		}
	}
	if res.InProgress > 1 && len(res.Fixes) == 0 {
		r.st.warnf("%d todos are marked in progress; the next change keeps the first and sets the others back to pending", res.InProgress)
	}
	r.st.printf("%s %s\n", r.st.paint(ansiBold, res.Issue.ID), safe(res.Issue.Title))
	if res.Rendered == "" {
		r.st.printf("\nNo todos yet. Plan the work with td todo set \"first step\" \"second step\"; the operator's definition of done goes in with td todo add --kind criterion.\n")
		r.printWaitingProposals(res.Proposals, issueFlag)
		return nil
	}
	r.st.printf("\n%s", r.paintChecklist(safe(res.Rendered)))
	if !strings.HasSuffix(res.Rendered, "\n") {
		r.st.printf("\n")
	}
	r.st.printf("\n%s\n", summaryLine(sum))
	if res.ProposedCriteria {
		r.st.printf("Criteria added by an agent are proposals: the operator ratifies the criteria at sign-off.\n")
	}
	if res.CriteriaMet {
		r.st.printf("All acceptance criteria are done: ask for sign-off with td review %s\n", res.Issue.ID)
	}
	r.printWaitingProposals(res.Proposals, issueFlag)
	for _, st := range res.Stalls {
		r.st.warnf("stalled: %s", st.Message)
	}
	return nil
}

func fixMessage(f markdown.Fix) string {
	switch {
	case f.From == domain.TodoInProgress && f.To == domain.TodoPending:
		return fmt.Sprintf("%q was also in progress; it is pending again (one todo in progress at a time, the first kept)", f.Text)
	case f.To == domain.TodoInProgress:
		return fmt.Sprintf("%q is now in progress (the first pending step)", f.Text)
	}
	return fmt.Sprintf("%q: %s -> %s", f.Text, f.From, f.To)
}

// paintChecklist colours markers on a terminal; plain text otherwise.
func (r *runner) paintChecklist(s string) string {
	if !r.st.color {
		return s
	}
	repl := strings.NewReplacer("[x]", r.st.paint(ansiGreen, "[x]"), "[X]", r.st.paint(ansiGreen, "[X]"),
		"[/]", r.st.paint(ansiYellow, "[/]"), "[!]", r.st.paint(ansiRed, "[!]"), "[-]", r.st.paint(ansiDim, "[-]"))
	return repl.Replace(s)
}

// todoScopeFlags are the flags every td todo verb takes, made afresh for
// each command (see globalFlags).
func todoScopeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "issue", Usage: "people (not agents): act on this issue instead of the bound one"},
		&cli.StringFlag{Name: "phase", Usage: "the phase (### heading under Todos) to address or add to"},
		&cli.StringFlag{Name: "kind", Usage: "step (the working plan) or criterion (the definition of done)"},
	}
}

// TodoScope is what every td todo verb shares: who acts, and which issue,
// phase and kind it addresses.
type TodoScope struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is --issue: an issue other than the bound one (a person's).
	Issue string
	// Phase is --phase: the phase to address or add to.
	Phase string
	// Kind is --kind: step or criterion ("" for either).
	Kind domain.TodoKind
}

// todoScopeOf reads the scope flags of a td todo verb.
func todoScopeOf(c *cli.Context) TodoScope {
	return TodoScope{Session: c.String("session"), Issue: c.String("issue"), Phase: c.String("phase"), Kind: domain.TodoKind(c.String("kind"))}
}

// runTodoOp runs one todo operation in scope as the scope's session and
// prints the list it leaves.
func (r *runner) runTodoOp(op string, scope TodoScope, req todos.TodoRequest) error {
	open := r.openSession
	if op == todos.TodoView {
		open = r.readSession
	}
	s, se, err := open(scope.Session)
	if err != nil {
		return err
	}
	req.Op, req.Issue, req.Phase, req.Kind = op, scope.Issue, scope.Phase, scope.Kind
	res, err := todos.Apply(s, se, req)
	if err != nil {
		return err
	}
	return r.printTodosFor(res, req.Issue)
}

// todoItemFlags are the flags of the verbs that take items: set and add.
func todoItemFlags() []cli.Flag {
	return append(append([]cli.Flag{}, todoScopeFlags()...),
		&cli.StringSliceFlag{Name: "items", Usage: "an item's text (repeatable; same as arguments)"},
		&cli.StringFlag{Name: "file", Usage: "read the items from `FILE` (- for standard input): one per line, \"### Phase\" lines start phases"},
	)
}

// todoItems reads the items of set and add: the arguments and --items, or
// the plan --file holds, its items before any "### Phase" line in the
// --phase phase.
func (r *runner) todoItems(c *cli.Context) ([]string, []markdown.PhaseItems, error) {
	texts := append(c.Args().Slice(), c.StringSlice("items")...)
	f := c.String("file")
	if f == "" {
		return texts, nil, nil
	}
	if len(texts) > 0 {
		return nil, nil, usagef("give the items as arguments or with --file, not both")
	}
	data, err := r.readFileArg(f)
	if err != nil {
		return nil, nil, err
	}
	return nil, parsePlan(data, c.String("phase")), nil
}

// todoCommand is td todo: the parent of the verbs, and td todo view when
// called alone.
func (r *runner) todoCommand() *cli.Command {
	view := r.todoViewCommand(nil)
	return &cli.Command{
		Name:  "todo",
		Usage: "the bound issue's checklist: acceptance criteria and working steps",
		Description: `td todo acts on the issue the current session is bound to (td session bind ID);
a person (an operator or a member) may name any issue with --issue. Todos
are addressed by their text: an exact match, then a case-insensitive one,
then a unique case-insensitive substring (--phase and --kind narrow the
search). Every call prints the whole list and a summary line.

Two kinds: steps (## Todos, the agent's working plan, ### phases) and criteria
(## Acceptance criteria, the operator's definition of done). Anyone may add a
criterion and claim it done; only an operator may drop or reopen one. At most
one todo is in progress; when none is, the first pending step is started.

Examples:
   td todo set "Write the parser" "Wire the command" --phase Backend
   td todo add --kind criterion "A user can sign in with GitHub"
   td todo start parser
   td todo note parser "goldmark keeps source offsets"
   td todo done parser
   td todo block "design tokens" --reason "waiting for the design team"
   td todo view --json`,
		Flags:  todoScopeFlags(),
		Action: view.Action,
		Subcommands: []*cli.Command{
			view,
			r.todoSetCommand(nil),
			r.todoAddCommand(nil),
			r.todoMarkCommand(todos.TodoStart, nil),
			r.todoMarkCommand(todos.TodoDone, nil),
			r.todoMarkCommand(todos.TodoDrop, nil),
			r.todoMarkCommand(todos.TodoBlock, nil),
			r.todoMarkCommand(todos.TodoUnblock, nil),
			r.todoNoteCommand(nil),
			r.todoProposeCommand(nil),
			r.todoAcceptCommand(nil),
			r.todoRejectCommand(nil),
			r.todoProposalsCommand(nil),
		},
	}
}

// parsePlan reads phased input for set and add: one item a line, with an
// optional list marker and checkbox; "### Name" starts a phase. Blank
// lines are skipped; items before the first phase go to the --phase one.
func parsePlan(text, phase string) []markdown.PhaseItems {
	var out []markdown.PhaseItems
	cur := markdown.PhaseItems{Name: phase}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), repo.MaxIssueFileSize)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if h, ok := strings.CutPrefix(line, "### "); ok {
			if len(cur.Texts) > 0 || cur.Name != phase {
				out = append(out, cur)
			}
			cur = markdown.PhaseItems{Name: strings.TrimSpace(h)}
			continue
		}
		for _, p := range []string{"- ", "* ", "+ "} {
			line = strings.TrimPrefix(line, p)
		}
		for _, m := range []string{"[ ] ", "[/] ", "[x] ", "[X] ", "[-] ", "[!] "} {
			line = strings.TrimPrefix(line, m)
		}
		if line = strings.TrimSpace(line); line != "" {
			cur.Texts = append(cur.Texts, line)
		}
	}
	if len(cur.Texts) > 0 {
		out = append(out, cur)
	}
	return out
}
