package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionUnbindOptions are td session unbind's inputs, as parsed from the
// command line.
type SessionUnbindOptions struct {
	// Session is --session: the session to unbind ("" for the default).
	Session string
}

// sessionUnbindCommand is td session unbind. runF, when not nil, replaces
// runSessionUnbind.
func (r *runner) sessionUnbindCommand(runF func(*SessionUnbindOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "unbind",
		Usage: "unbind the current session from its issue (the todos stay in the issue)",
		Description: `The issue keeps its todos and its status; its assignee is cleared only if
it still points at this session.

Examples:
   td session unbind`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &SessionUnbindOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionUnbind(o)
		},
	}
}

// runSessionUnbind unbinds the session; the issue keeps its todos.
func (r *runner) runSessionUnbind(o *SessionUnbindOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := sessions.Unbind(s, se)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return map[string]any{"session": se.ID, "unbound": res.Previous} }, func() error {
		r.st.printf("Unbound %s from %s; its todos stay in the issue.\n", se.ID, res.Previous)
		return nil
	})
}
