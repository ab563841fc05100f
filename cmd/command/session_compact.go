package command

import (
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionCompactOptions are td session compact's inputs, as parsed from
// the command line.
type SessionCompactOptions struct {
	// Session is --session: the session compacted ("" for the default).
	Session string
	// Format is --format: text or markdown.
	Format string
}

// sessionCompactCommand is td session compact. runF, when not nil,
// replaces runSessionCompact.
func (r *runner) sessionCompactCommand(runF func(*SessionCompactOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "compact",
		Usage: "print the post-compaction reminder (call it after the agent's memory was summarised)",
		Description: `Marks the session compacted, counts it, and prints what an agent needs
to pick up again: the language, the bound issue and its active todo, the
last three td actions, the critical anchors and what to do next.

Examples:
   td session compact
   td session compact --format markdown
   td session compact --json`,
		Flags: []cli.Flag{formatFlag()},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--format text|markdown]"); err != nil {
				return err
			}
			o := &SessionCompactOptions{Session: c.String("session"), Format: c.String("format")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionCompact(o)
		},
	}
}

// runSessionCompact marks the session compacted and prints the reminder.
func (r *runner) runSessionCompact(o *SessionCompactOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	ctx, err := sessions.Compact(s, se)
	if err != nil {
		return err
	}
	return r.printContext(ctx, o.Format)
}
