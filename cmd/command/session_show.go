package command

import (
	"github.com/urfave/cli/v2"
)

// SessionShowOptions are td session show's inputs, as parsed from the
// command line.
type SessionShowOptions struct {
	// Session is --session: the current session.
	Session string
	// ID is the session to show, "" for the current one.
	ID string
}

// sessionShowCommand is td session show. runF, when not nil, replaces
// runSessionShow.
func (r *runner) sessionShowCommand(runF func(*SessionShowOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a session (the current one by default)",
		ArgsUsage: "[ID]",
		Description: `Examples:
   td session show
   td session show ses_7hq2m4p1 --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 1, "[ID]")
			if err != nil {
				return err
			}
			o := &SessionShowOptions{Session: c.String("session")}
			if len(a) == 1 {
				o.ID = a[0]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionShow(o)
		},
	}
}

// runSessionShow prints the session.
func (r *runner) runSessionShow(o *SessionShowOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	se, err := r.sessionArg(s, o.Session, o.ID, false)
	if err != nil {
		return err
	}
	curID, _ := r.currentID(s, o.Session)
	return r.st.export(func() any { return r.sessionJSON(s, se, curID) }, func() error {
		r.printSession(s, se)
		return nil
	})
}
