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

// markVerb is one of the verbs that set todos' status: its usage line,
// its description, and whether it takes --reason (block). Each is defined
// in the file named for it (todo_start.go, todo_done.go, ...).
type markVerb struct {
	usage, desc string
	reason      bool
	// aliases are other names the verb answers to.
	aliases []string
}

// todoMarkVerb is the status verb op.
func todoMarkVerb(op string) (usage, desc string, reason bool, aliases []string) {
	v := map[string]func() markVerb{
		todos.TodoStart: todoStartVerb, todos.TodoDone: todoDoneVerb, todos.TodoDrop: todoDropVerb,
		todos.TodoBlock: todoBlockVerb, todos.TodoUnblock: todoUnblockVerb,
	}[op]
	if v == nil {
		return "", "", false, nil
	}
	m := v()
	return m.usage, m.desc, m.reason, m.aliases
}

// todoMarkCommand is td todo OP for one status verb. runF, when not nil,
// replaces runTodoMark.
func (r *runner) todoMarkCommand(op string, runF func(*TodoMarkOptions) error) *cli.Command {
	usage, desc, reason, aliases := todoMarkVerb(op)
	flags := append([]cli.Flag{}, todoScopeFlags()...)
	if reason {
		flags = append(flags, &cli.StringFlag{Name: "reason", Usage: "why: added as a note \"blocked: REASON\""})
	}
	return &cli.Command{
		Name: op, Aliases: aliases, Usage: usage, ArgsUsage: "TEXT...", Description: desc, Flags: flags,
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
