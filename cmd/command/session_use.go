package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionUseOptions are td session use's inputs, as parsed from the
// command line.
type SessionUseOptions struct {
	// ID is the session to act as from now on in this checkout.
	ID string
}

// sessionUseCommand is td session use. runF, when not nil, replaces
// runSessionUse.
func (r *runner) sessionUseCommand(runF func(*SessionUseOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "use",
		Usage:     "make a session this checkout's current session",
		ArgsUsage: "ID",
		Description: `Later td commands in this checkout act as ID, unless --session or
$TD_SESSION says otherwise. The pointer lives in .todos/local/ (not committed).

Examples:
   td session use ses_7hq2m4p1`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			o := &SessionUseOptions{ID: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionUse(o)
		},
	}
}

// runSessionUse points the checkout at the session.
func (r *runner) runSessionUse(o *SessionUseOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	acting, err := sessions.Named(s, r.sessionFlag)
	if err != nil {
		return err
	}
	se, err := sessions.Use(s, acting, o.ID)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return r.sessionJSON(s, se, se.ID) }, func() error {
		r.st.printf("This checkout now acts as %s (%s).\n", se.ID, se.Name)
		return nil
	})
}
