package command

import (
	"testing"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

func TestTodoViewOptions(t *testing.T) {
	checkParse(t, "todo", (*runner).todoViewCommand, []parseCase[TodoViewOptions]{
		{name: "bound", argv: []string{"todo", "view"}, want: TodoViewOptions{}},
		{name: "scope", argv: []string{"todo", "view", "--issue", "k3x", "--phase", "UI", "--kind", "criterion", "--session", "s-1"},
			want: TodoViewOptions{TodoScope{Session: "s-1", Issue: "k3x", Phase: "UI", Kind: domain.KindCriterion}}},
		{name: "argument", argv: []string{"todo", "view", "extra"}, usage: true},
	})
}

func TestTodoSetOptions(t *testing.T) {
	checkParse(t, "todo", (*runner).todoSetCommand, []parseCase[TodoSetOptions]{
		{name: "words", argv: []string{"todo", "set", "Parse", "Wire", "--items", "Test", "--phase", "Backend"},
			want: TodoSetOptions{TodoScope: TodoScope{Phase: "Backend"}, Items: []string{"Parse", "Wire", "Test"}}},
		{name: "plan", argv: []string{"todo", "set", "--file", "-", "--phase", "First"}, stdin: "- [ ] Parse\n### UI\n* Button\n",
			want: TodoSetOptions{TodoScope: TodoScope{Phase: "First"}, Phases: []markdown.PhaseItems{{Name: "First", Texts: []string{"Parse"}}, {Name: "UI", Texts: []string{"Button"}}}}},
		{name: "both", argv: []string{"todo", "set", "Parse", "--file", "-"}, usage: true},
	})
}

func TestTodoAddOptions(t *testing.T) {
	checkParse(t, "todo", (*runner).todoAddCommand, []parseCase[TodoAddOptions]{
		{name: "criterion", argv: []string{"todo", "add", "--kind", "criterion", "A user can sign in"},
			want: TodoAddOptions{TodoScope: TodoScope{Kind: domain.KindCriterion}, Items: []string{"A user can sign in"}}},
		{name: "file drops phases", argv: []string{"todo", "add", "--file", "-"}, stdin: "One\n### UI\nTwo\n",
			want: TodoAddOptions{Items: []string{"One", "Two"}}},
		{name: "both", argv: []string{"todo", "add", "x", "--file", "-"}, usage: true},
	})
}

func TestTodoMarkOptions(t *testing.T) {
	mark := func(op string) func(*runner, func(*TodoMarkOptions) error) *cli.Command {
		return func(r *runner, runF func(*TodoMarkOptions) error) *cli.Command { return r.todoMarkCommand(op, runF) }
	}
	checkParse(t, "todo", mark(todos.TodoDone), []parseCase[TodoMarkOptions]{
		{name: "several", argv: []string{"todo", "done", "OAuth app", "callback", "--issue", "k3x"},
			want: TodoMarkOptions{TodoScope: TodoScope{Issue: "k3x"}, Op: todos.TodoDone, Targets: []string{"OAuth app", "callback"}}},
		{name: "none", argv: []string{"todo", "done"}, usage: true},
		{name: "no reason flag", argv: []string{"todo", "done", "x", "--reason", "why"}, usage: true},
	})
	checkParse(t, "todo", mark(todos.TodoStart), []parseCase[TodoMarkOptions]{
		{name: "one", argv: []string{"todo", "start", "callback"}, want: TodoMarkOptions{Op: todos.TodoStart, Targets: []string{"callback"}}},
		{name: "two", argv: []string{"todo", "start", "a", "b"}, usage: true},
	})
	checkParse(t, "todo", mark(todos.TodoBlock), []parseCase[TodoMarkOptions]{
		{name: "reason", argv: []string{"todo", "block", "Login button", "--reason", "tokens"},
			want: TodoMarkOptions{Op: todos.TodoBlock, Targets: []string{"Login button"}, Reason: "tokens"}},
	})
}

func TestTodoNoteOptions(t *testing.T) {
	checkParse(t, "todo", (*runner).todoNoteCommand, []parseCase[TodoNoteOptions]{
		{name: "argument", argv: []string{"todo", "note", "callback", "verify state"}, want: TodoNoteOptions{Target: "callback", Note: "verify state"}},
		{name: "flag", argv: []string{"todo", "note", "callback", "--text", "-v matters"}, want: TodoNoteOptions{Target: "callback", Note: "-v matters"}},
		{name: "both", argv: []string{"todo", "note", "callback", "a", "--text", "b"}, usage: true},
		{name: "three", argv: []string{"todo", "note", "a", "b", "c"}, usage: true},
	})
}

func TestTodoProposalOptions(t *testing.T) {
	checkParse(t, "todo", (*runner).todoProposeCommand, []parseCase[TodoProposeOptions]{
		{name: "items", argv: []string{"todo", "propose", "Login button", "--items", "Colour tokens", "--phase", "UI"},
			want: TodoProposeOptions{Items: []string{"Login button", "Colour tokens"}, Phase: "UI"}},
		{name: "criterion", argv: []string{"todo", "propose", "--kind", "criterion", "Contrast"}, want: TodoProposeOptions{Items: []string{"Contrast"}, Kind: domain.KindCriterion}},
		{name: "none", argv: []string{"todo", "propose"}, usage: true},
	})
	checkParse(t, "todo", (*runner).todoAcceptCommand, []parseCase[TodoAcceptOptions]{
		{name: "id", argv: []string{"todo", "accept", "p7k2", "--issue", "k3x"}, want: TodoAcceptOptions{Issue: "k3x", Proposal: "p7k2"}},
		{name: "none", argv: []string{"todo", "accept"}, usage: true},
		{name: "two", argv: []string{"todo", "accept", "a", "b"}, usage: true},
	})
	checkParse(t, "todo", (*runner).todoRejectCommand, []parseCase[TodoRejectOptions]{
		{name: "reason", argv: []string{"todo", "reject", "p7k2", "--reason", "not ours", "--session", "s-1"},
			want: TodoRejectOptions{Session: "s-1", Proposal: "p7k2", Reason: "not ours"}},
		{name: "none", argv: []string{"todo", "reject"}, usage: true},
	})
	checkParse(t, "todo", (*runner).todoProposalsCommand, []parseCase[TodoProposalsOptions]{
		{name: "bound", argv: []string{"todo", "proposals"}, want: TodoProposalsOptions{}},
		{name: "argument", argv: []string{"todo", "proposals", "x"}, usage: true},
	})
}
