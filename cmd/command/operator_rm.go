package command

import (
	"github.com/tdproject/td/repo/people"
	"github.com/urfave/cli/v2"
)

// OperatorRmOptions are td operator rm's inputs, as parsed from the
// command line.
type OperatorRmOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Who names the operator: "Name <email>", an email or a name.
	Who string
	// Yes is --yes: remove the acting person's own entry.
	Yes bool
}

// operatorRmCommand is td operator rm. runF, when not nil, replaces
// runOperatorRm.
func (r *runner) operatorRmCommand(runF func(*OperatorRmOptions) error) *cli.Command {
	return &cli.Command{Name: "rm", Usage: "remove an operator (an operator only; audited)", ArgsUsage: `"NAME <EMAIL>"|EMAIL|NAME`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "yes", Usage: "confirm removing your own entry"}},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, `"NAME <EMAIL>"|EMAIL|NAME`)
			if err != nil {
				return err
			}
			o := &OperatorRmOptions{Session: c.String("session"), Who: a[0], Yes: c.Bool("yes")}
			if runF != nil {
				return runF(o)
			}
			return r.runOperatorRm(o)
		}}
}

// runOperatorRm removes the operator from operators: and says so.
func (r *runner) runOperatorRm(o *OperatorRmOptions) error {
	// Refuse before td starts a session for whoever runs it: a refused
	// command writes nothing.
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	if err := people.MayChange(s, se, "remove"); err != nil {
		return err
	}
	s, se, err = r.openSession(o.Session)
	if err != nil {
		return err
	}
	ch, err := people.RemoveOperator(s, se, people.RemoveOptions{Who: o.Who, Yes: o.Yes})
	if err != nil {
		return err
	}
	return r.st.export(func() any { return operatorChangeJSON(ch) }, func() error {
		r.st.printf("Removed %s from operators in .todos/config.yaml.\n", ch.Identity)
		r.st.printf("Security event recorded (%s).\n", ch.Event.Reason)
		return nil
	})
}
