package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// bindCommands are td session bind and unbind: they move the session's
// pointer to its issue and never touch the todos.
func (r *runner) bindCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "bind",
			Usage:     "bind the current session to an issue: its todos become the session's checklist",
			ArgsUsage: "ID",
			Description: `A pointer only: the issue's todos are untouched, and binding again later
shows the same list. The issue's assignee becomes session:<id>. Binding a
second issue unbinds the first.

Examples:
   td session bind td-k3x9qa
   TD_SESSION=ses_c81kd0zz td session bind k3x9`,
			Action: func(c *cli.Context) error {
				a, s, se, err := r.actorArgs(c, 1, 1, "ID")
				if err != nil {
					return err
				}
				res, err := sessions.Bind(s, se, a[0])
				if err != nil {
					return err
				}
				view, err := todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoView})
				if err != nil {
					return err
				}
				if r.st.json {
					return r.printTodos(view)
				}
				if res.Previous != "" {
					r.st.printf("Unbound %s from %s.\n", se.ID, res.Previous)
				}
				if res.Changed {
					r.st.printf("Bound %s to %s.", se.ID, res.Issue.ID)
				} else {
					r.st.printf("%s was already bound to %s.", se.ID, res.Issue.ID)
				}
				if res.Reassigned != "" {
					r.st.printf(" Assignee was %s.", res.Reassigned)
				}
				r.st.printf("\n\n")
				return r.printTodos(view)
			},
		},
		{
			Name:  "unbind",
			Usage: "unbind the current session from its issue (the todos stay in the issue)",
			Description: `The issue keeps its todos and its status; its assignee is cleared only if
it still points at this session.

Examples:
   td session unbind`,
			Action: func(c *cli.Context) error {
				_, s, se, err := r.actorArgs(c, 0, 0, "")
				if err != nil {
					return err
				}
				res, err := sessions.Unbind(s, se)
				if err != nil {
					return err
				}
				if r.st.json {
					return r.st.emitJSON(map[string]any{"session": se.ID, "unbound": res.Previous})
				}
				r.st.printf("Unbound %s from %s; its todos stay in the issue.\n", se.ID, res.Previous)
				return nil
			},
		},
	}
}
