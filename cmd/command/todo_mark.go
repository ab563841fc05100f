package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoMarkOptions are the inputs of the verbs that set todos' status: td
// todo start, done, drop, block and unblock. They share one shape (todos
// named by text, a reason for block), so they share one Options and one
// run function, the verb in Op.
type TodoMarkOptions struct {
	TodoScope
	// Op is the verb: repo.TodoStart, TodoDone, TodoDrop, TodoBlock or
	// TodoUnblock.
	Op string
	// Targets are the todos, each by its text or a unique part of it.
	Targets []string
	// Reason is block's --reason, kept as a note.
	Reason string
}

// todoMarkVerb is a status verb's usage line and description, and whether
// it takes --reason (block).
func todoMarkVerb(op string) (usage, desc string, reason bool) {
	switch op {
	case todos.TodoStart:
		return "mark a todo in progress (the previous one goes back to pending)", "Examples:\n   td todo start callback", false
	case todos.TodoDone:
		return "mark todos done", "Claiming a criterion done is recorded in the issue's ledger.\n\nExamples:\n   td todo done callback\n   td todo done \"OAuth app\" callback", false
	case todos.TodoDrop:
		return "mark todos abandoned (kept in the list, never deleted)", "Only an operator may drop an acceptance criterion.\n\nExamples:\n   td todo drop \"device flow\"", false
	case todos.TodoBlock:
		return "mark todos blocked (never started automatically)", "Examples:\n   td todo block \"Login button\" --reason \"waiting for the design tokens\"", true
	case todos.TodoUnblock:
		return "mark blocked todos pending again", "Examples:\n   td todo unblock \"Login button\"", false
	}
	return "", "", false
}

// todoMarkCommand is td todo OP for one status verb. runF, when not nil,
// replaces runTodoMark.
func (r *runner) todoMarkCommand(op string, runF func(*TodoMarkOptions) error) *cli.Command {
	usage, desc, reason := todoMarkVerb(op)
	flags := append([]cli.Flag{}, todoScopeFlags...)
	if reason {
		flags = append(flags, &cli.StringFlag{Name: "reason", Usage: "why: added as a note \"blocked: REASON\""})
	}
	return &cli.Command{
		Name: op, Usage: usage, ArgsUsage: "TEXT...", Description: desc, Flags: flags,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TEXT... (part of each todo's text)")
			if err != nil {
				return err
			}
			if op == todos.TodoStart && len(a) > 1 {
				return usagef("start takes one todo: one is in progress at a time")
			}
			o := &TodoMarkOptions{TodoScope: todoScopeOf(c), Op: op, Targets: a, Reason: c.String("reason")}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoMark(o)
		},
	}
}

// runTodoMark sets the todos' status and prints the list.
func (r *runner) runTodoMark(o *TodoMarkOptions) error {
	return r.runTodoOp(o.Op, o.TodoScope, todos.TodoRequest{Targets: o.Targets, Reason: o.Reason})
}
