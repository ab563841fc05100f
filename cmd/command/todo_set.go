package command

import (
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoSetOptions are td todo set's inputs, as parsed from the command line.
type TodoSetOptions struct {
	TodoScope
	// Items are the steps from the arguments and --items.
	Items []string
	// Phases is the plan --file holds; it takes precedence over Items.
	Phases []markdown.PhaseItems
}

// todoSetCommand is td todo set. runF, when not nil, replaces runTodoSet.
func (r *runner) todoSetCommand(runF func(*TodoSetOptions) error) *cli.Command {
	return &cli.Command{
		Name: "set", Usage: "replace the steps (the working plan)", ArgsUsage: "ITEM...", Flags: todoItemFlags(),
		Description: `Rewrites the ## Todos section with these steps. A step whose text matches an
existing one keeps its status and notes. --file reads a plan: one item a line
("- [ ] " prefixes optional), "### Phase" lines start a phase.

Examples:
   td todo set "Register the OAuth app" "Write the callback" --phase Backend
   td todo set --file plan.md`,
		Action: func(c *cli.Context) error {
			texts, phases, err := r.todoItems(c)
			if err != nil {
				return err
			}
			o := &TodoSetOptions{TodoScope: todoScopeOf(c), Items: texts, Phases: phases}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoSet(o)
		},
	}
}

// runTodoSet rewrites the steps and prints the list.
func (r *runner) runTodoSet(o *TodoSetOptions) error {
	return r.runTodoOp(todos.TodoSet, o.TodoScope, todos.TodoRequest{Items: o.Items, Phases: o.Phases})
}
