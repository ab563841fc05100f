package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoAddOptions are td todo add's inputs, as parsed from the command line.
type TodoAddOptions struct {
	TodoScope
	// Items are the texts to append: the arguments and --items, or every
	// item --file holds, its phase headings dropped.
	Items []string
}

// todoAddCommand is td todo add. runF, when not nil, replaces runTodoAdd.
func (r *runner) todoAddCommand(runF func(*TodoAddOptions) error) *cli.Command {
	return &cli.Command{
		Name: "add", Usage: "append items to a phase (or the criteria)", ArgsUsage: "ITEM...", Flags: todoItemFlags(),
		Description: `Appends items at the end of the phase (made if missing) or of the acceptance
criteria with --kind criterion. An item with the same text as another in the
issue is refused.

Examples:
   td todo add "Integration test against a fake provider" --phase Backend
   td todo add --kind criterion "Expired tokens refresh without a prompt"`,
		Action: func(c *cli.Context) error {
			texts, phases, err := r.todoItems(c)
			if err != nil {
				return err
			}
			for _, p := range phases {
				texts = append(texts, p.Texts...)
			}
			o := &TodoAddOptions{TodoScope: todoScopeOf(c), Items: texts}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoAdd(o)
		},
	}
}

// runTodoAdd appends the items and prints the list.
func (r *runner) runTodoAdd(o *TodoAddOptions) error {
	return r.runTodoOp(todos.TodoAdd, o.TodoScope, todos.TodoRequest{Items: o.Items})
}
