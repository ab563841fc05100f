package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// ContextOptions are td context's inputs, as parsed from the command line.
type ContextOptions struct {
	// Session is --session: the session whose context to print ("" for
	// the default).
	Session string
	// Format is --format: text or markdown.
	Format string
}

// contextCommand is td context: the session's context block at any time.
// runF, when not nil, replaces runContext.
func (r *runner) contextCommand(runF func(*ContextOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "context",
		Usage: "print the current session's context: issue, todos, anchors, warnings, next step",
		Description: `The same block td session start prints, for the session as it is now;
it changes nothing.

Examples:
   td context
   td context --format markdown >> agent-prompt.md
   TD_SESSION=ses_c81kd0zz td context --json`,
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--format text|markdown]"); err != nil {
				return err
			}
			o := &ContextOptions{Session: c.String("session"), Format: c.String("format")}
			if runF != nil {
				return runF(o)
			}
			return r.runContext(o)
		},
	}
}

// runContext prints the session's context block as it is now.
func (r *runner) runContext(o *ContextOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	ctx, err := sessions.ContextOf(s, se, sessions.ContextNow)
	if err != nil {
		return err
	}
	return r.printContext(ctx, o.Format)
}
