package command

import (
	"github.com/urfave/cli/v2"
)

// WhoamiOptions are td whoami's inputs, as parsed from the command line.
type WhoamiOptions struct {
	// Session is --session: the session named, "" for td's resolution.
	Session string
}

// whoamiCommand is td whoami. runF, when not nil, replaces runWhoami.
func (r *runner) whoamiCommand(runF func(*WhoamiOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "whoami",
		Usage: "show the session td acts as here, and how it was found",
		Description: `Resolution order: --session, $TD_SESSION, the checkout's current session,
your default operator session (made on first use).

Examples:
   td whoami
   TD_SESSION=ses_7hq2m4p1 td whoami --json`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &WhoamiOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runWhoami(o)
		},
	}
}

// runWhoami prints the session td acts as and where it was found.
func (r *runner) runWhoami(o *WhoamiOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	se, src, err := s.ReadingSession(o.Session)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return map[string]any{"session": r.sessionJSON(s, se, se.ID), "source": src} }, func() error {
		r.printSession(s, se)
		r.st.printf("found by: %s\n", src)
		return nil
	})
}
