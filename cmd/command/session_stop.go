package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionStopOptions are td session stop's inputs, as parsed from the
// command line.
type SessionStopOptions struct {
	// Session is --session: the session to stop ("" for the default).
	Session string
}

// sessionStopCommand is td session stop. runF, when not nil, replaces
// runSessionStop.
func (r *runner) sessionStopCommand(runF func(*SessionStopOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "stop",
		Usage: "mark the session interrupted (binding and state kept)",
		Description: `Ending a session never closes or unbinds its issue: td session resume
picks it up again, and the idle time from now decides what resume shows.

Examples:
   td session stop`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &SessionStopOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionStop(o)
		},
	}
}

// runSessionStop marks the session interrupted.
func (r *runner) runSessionStop(o *SessionStopOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	rt, err := sessions.Stop(s, se)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return map[string]any{"session": se.ID, "state": rt.State, "stopped_at": jsonTime(rt.StoppedAt), "bound_issue": rt.BoundIssue}
	}, func() error {
		r.st.printf("Stopped %s at %s", se.ID, jsonTime(rt.StoppedAt))
		if rt.BoundIssue != "" {
			r.st.printf("; still bound to %s", rt.BoundIssue)
		}
		r.st.printf(". td session resume %s picks it up.\n", se.ID)
		return nil
	})
}
