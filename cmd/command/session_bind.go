package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// SessionBindOptions are td session bind's inputs, as parsed from the
// command line.
type SessionBindOptions struct {
	// Session is --session: the session to bind ("" for the default).
	Session string
	// Issue is the issue to bind it to, as typed.
	Issue string
}

// sessionBindCommand is td session bind: it moves the session's pointer
// to an issue and never touches the todos. runF, when not nil, replaces
// runSessionBind.
func (r *runner) sessionBindCommand(runF func(*SessionBindOptions) error) *cli.Command {
	return &cli.Command{
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
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			o := &SessionBindOptions{Session: c.String("session"), Issue: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionBind(o)
		},
	}
}

// runSessionBind binds the session and prints the issue's list.
func (r *runner) runSessionBind(o *SessionBindOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := sessions.Bind(s, se, o.Issue)
	if err != nil {
		return err
	}
	view, err := todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoView})
	if err != nil {
		return err
	}
	return r.st.export(func() any { return r.todoJSONOf(view) }, func() error {
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
		return r.todosText(view, "")
	})
}
