package command

import (
	"fmt"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/doctor"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionPruneOptions are td session prune's inputs, as parsed from the
// command line.
type SessionPruneOptions struct {
	// Idle is --idle: prune sessions with no activity for longer than this.
	Idle time.Duration
	// DryRun is --dry-run: list what would be pruned, remove nothing.
	DryRun bool
}

// sessionPruneCommand is td session prune. runF, when not nil, replaces
// runSessionPrune.
func (r *runner) sessionPruneCommand(runF func(*SessionPruneOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "remove the local state of sessions idle longer than --idle",
		Description: `Every session that ran td in this clone keeps local state under td/sessions
in the git common directory (.todos/local/sessions outside git): its lifecycle
state, bound issue, recent actions and counters. td session prune
removes it for each session whose last activity is older than --idle
(default 720h, 30 days), except the session td acts as here. The session's
identity file (.todos/sessions/<id>.yaml) is committed history and stays; a
pruned session that acts again starts unbound, with fresh counters.

Examples:
   td session prune
   td session prune --idle 168h --dry-run`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "idle", Value: doctor.DefaultIdle, Usage: "prune sessions quiet for longer than `LONG` (such as 168h)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "list the sessions that would be pruned; remove nothing"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--idle DURATION] [--dry-run]"); err != nil {
				return err
			}
			o := &SessionPruneOptions{Idle: c.Duration("idle"), DryRun: c.Bool("dry-run")}
			if o.Idle <= 0 {
				return usagef("--idle must be a positive duration such as 168h")
			}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionPrune(o)
		},
	}
}

// runSessionPrune prunes (or lists) the idle sessions' local state.
func (r *runner) runSessionPrune(o *SessionPruneOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	var list []sessions.Activity
	if o.DryRun {
		list, err = sessions.IdleActivity(s, o.Idle)
	} else {
		list, err = sessions.Prune(s, o.Idle)
	}
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		if list == nil {
			list = []sessions.Activity{}
		}
		return map[string]any{"dry_run": o.DryRun, "idle": hours(o.Idle), "sessions": list}
	}, func() error {
		verb := "pruned"
		if o.DryRun {
			verb = "would prune"
		}
		for _, a := range list {
			r.st.printf("%s %s  %-12s  %-9s  idle since %s  %s\n", verb, a.ID, orDash(a.State), orDash(a.BoundIssue), jsonTime(a.LastActive), safe(a.Name))
		}
		switch {
		case len(list) == 0:
			r.st.printf("No session has been idle for longer than %s.\n", hours(o.Idle))
		case o.DryRun:
			r.st.printf("%d %s idle for longer than %s; run without --dry-run to prune.\n", len(list), domain.Plural(len(list), "session", "sessions"), hours(o.Idle))
		default:
			r.st.printf("Pruned the local state of %d %s.\n", len(list), domain.Plural(len(list), "session", "sessions"))
		}
		return nil
	})
}

// hours writes a duration as --idle takes it: whole hours as "168h",
// anything else as Go writes it.
func hours(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int64(d/time.Hour))
	}
	return d.String()
}
