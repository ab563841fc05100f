package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionResumeOptions are td session resume's inputs, as parsed from the
// command line.
type SessionResumeOptions struct {
	// Session is --session: the current session.
	Session string
	// ID is the session to resume, "" for the current one.
	ID string
	// Format is --format: text or markdown.
	Format string
}

// sessionResumeCommand is td session resume. runF, when not nil, replaces
// runSessionResume.
func (r *runner) sessionResumeCommand(runF func(*SessionResumeOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "resume a session and print its context (a resume block after an hour away)",
		ArgsUsage: "[ID]",
		Description: `Idle time runs from the session's last td command or its stop. Under an
hour: the plain context. From one hour to 48 hours: a resume block (time
away, last activity, anchors) leads the context. Over 48 hours: the session
starts fresh, as at td session start, with its binding kept.

Examples:
   td session resume
   td session resume ses_c81kd0zz --format markdown`,
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 1, "[ID] [--format text|markdown]")
			if err != nil {
				return err
			}
			o := &SessionResumeOptions{Session: c.String("session"), Format: c.String("format")}
			if len(a) == 1 {
				o.ID = a[0]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionResume(o)
		},
	}
}

// runSessionResume resumes the session and prints its context.
func (r *runner) runSessionResume(o *SessionResumeOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	se, err := r.sessionArg(s, o.Session, o.ID, true)
	if err != nil {
		return err
	}
	ctx, err := sessions.Resume(s, se)
	if err != nil {
		return err
	}
	return r.printContext(ctx, o.Format)
}
