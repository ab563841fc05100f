package command

import (
	"github.com/tdproject/td/repo/people"
	"github.com/urfave/cli/v2"
)

// OperatorListOptions are td operator list's inputs, as parsed from the
// command line.
type OperatorListOptions struct {
	// Session is --session: whose entry is marked "(you)".
	Session string
}

// operatorListCommand is td operator list. runF, when not nil, replaces
// runOperatorList.
func (r *runner) operatorListCommand(runF func(*OperatorListOptions) error) *cli.Command {
	return &cli.Command{Name: "list", Usage: "the operators in the config, marking yours",
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &OperatorListOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runOperatorList(o)
		}}
}

// runOperatorList prints operators: one a line.
func (r *runner) runOperatorList(o *OperatorListOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	list := people.Operators(s, se)
	return r.st.export(func() any { return map[string]any{"operators": list} }, func() error {
		if len(list) == 0 {
			r.st.printf("No operators: .todos/config.yaml lists none.\n")
			return nil
		}
		for _, op := range list {
			if op.You {
				r.st.printf("%s (you)\n", op.Identity)
				continue
			}
			r.st.printf("%s\n", op.Identity)
		}
		return nil
	})
}
