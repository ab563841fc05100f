package command

import (
	"github.com/tdproject/td/repo/people"
	"github.com/urfave/cli/v2"
)

// OperatorAddOptions are td operator add's inputs, as parsed from the
// command line.
type OperatorAddOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Identity is the git identity to add, "Name <email>".
	Identity string
}

// operatorAddCommand is td operator add. runF, when not nil, replaces
// runOperatorAdd.
func (r *runner) operatorAddCommand(runF func(*OperatorAddOptions) error) *cli.Command {
	return &cli.Command{Name: "add", Usage: "add a git identity to operators (an operator only; audited)", ArgsUsage: `"NAME <EMAIL>"`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, `"NAME <EMAIL>"`)
			if err != nil {
				return err
			}
			o := &OperatorAddOptions{Session: c.String("session"), Identity: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runOperatorAdd(o)
		}}
}

// runOperatorAdd adds the identity to operators: and says so.
func (r *runner) runOperatorAdd(o *OperatorAddOptions) error {
	// Refuse before td starts a session for whoever runs it: a refused
	// command writes nothing.
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	if err := people.MayChange(s, se, "add"); err != nil {
		return err
	}
	s, se, err = r.openSession(o.Session)
	if err != nil {
		return err
	}
	ch, err := people.AddOperator(s, se, o.Identity)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return operatorChangeJSON(ch) }, func() error {
		if !ch.Changed {
			r.st.printf("%s is already an operator; nothing to do.\n", ch.Identity)
			return nil
		}
		r.st.printf("Added %s to operators in .todos/config.yaml.\n", ch.Identity)
		r.st.printf("Security event recorded (%s).\n", ch.Event.Reason)
		return nil
	})
}
