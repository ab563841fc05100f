package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoViewOptions are td todo view's inputs, as parsed from the command
// line.
type TodoViewOptions struct {
	TodoScope
}

// todoViewCommand is td todo view (and td todo alone). runF, when not nil,
// replaces runTodoView.
func (r *runner) todoViewCommand(runF func(*TodoViewOptions) error) *cli.Command {
	return &cli.Command{
		Name: "view", Usage: "print the list", Flags: todoScopeFlags(),
		Description: "Examples:\n   td todo view\n   td todo view --issue td-k3x9qa --json",
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--issue ID]"); err != nil {
				return err
			}
			o := &TodoViewOptions{TodoScope: todoScopeOf(c)}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoView(o)
		},
	}
}

// runTodoView prints the list and the proposals waiting on it.
func (r *runner) runTodoView(o *TodoViewOptions) error {
	return r.runTodoOp(todos.TodoView, o.TodoScope, todos.TodoRequest{})
}
