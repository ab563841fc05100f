package command

import (
	"strings"

	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// lifecycleCommands are the session lifecycle of spec section 8: compact,
// stop, resume and error (start lives with the other session commands).
func (r *runner) lifecycleCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:  "compact",
			Usage: "print the post-compaction reminder (call it after the agent's memory was summarised)",
			Description: `Marks the session compacted, counts it, and prints what an agent needs
to pick up again: the language, the bound issue and its active todo, the
last three td actions, the critical anchors and what to do next.

Examples:
   td session compact
   td session compact --format markdown
   td session compact --json`,
			Flags: []cli.Flag{formatFlag},
			Action: func(c *cli.Context) error {
				_, s, se, err := r.actorArgs(c, 0, 0, "[--format text|markdown]")
				if err != nil {
					return err
				}
				if err := checkFormat(c.String("format")); err != nil {
					return err
				}
				ctx, err := sessions.Compact(s, se)
				if err != nil {
					return err
				}
				return r.printContext(ctx, c.String("format"))
			},
		},
		{
			Name:  "stop",
			Usage: "mark the session interrupted (binding and state kept)",
			Description: `Ending a session never closes or unbinds its issue: td session resume
picks it up again, and the idle time from now decides what resume shows.

Examples:
   td session stop`,
			Action: func(c *cli.Context) error {
				_, s, se, err := r.actorArgs(c, 0, 0, "")
				if err != nil {
					return err
				}
				rt, err := sessions.Stop(s, se)
				if err != nil {
					return err
				}
				if r.st.json {
					return r.st.emitJSON(map[string]any{"session": se.ID, "state": rt.State, "stopped_at": jsonTime(rt.StoppedAt), "bound_issue": rt.BoundIssue})
				}
				r.st.printf("Stopped %s at %s", se.ID, jsonTime(rt.StoppedAt))
				if rt.BoundIssue != "" {
					r.st.printf("; still bound to %s", rt.BoundIssue)
				}
				r.st.printf(". td session resume %s picks it up.\n", se.ID)
				return nil
			},
		},
		{
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
			Flags: []cli.Flag{formatFlag},
			Action: func(c *cli.Context) error {
				a, s, err := r.openArgs(c, 0, 1, "[ID] [--format text|markdown]")
				if err != nil {
					return err
				}
				if err := checkFormat(c.String("format")); err != nil {
					return err
				}
				se, err := r.sessionArg(c, s, a, true)
				if err != nil {
					return err
				}
				ctx, err := sessions.Resume(s, se)
				if err != nil {
					return err
				}
				return r.printContext(ctx, c.String("format"))
			},
		},
		{
			Name:      "error",
			Usage:     "report an error the session hit, for stall detection",
			ArgsUsage: "MESSAGE",
			Description: `The same error three times in a row, or more than 20 errors in a session,
is a stall: the warning shows here, after todo changes and in the context.
Digits and spacing do not make errors differ; --at does.

Examples:
   td session error "go test: undefined: parseToken" --at auth/token.go:41
   td session error "$(tail -1 build.log)" --json`,
			Flags: []cli.Flag{&cli.StringFlag{Name: "at", Usage: "where it happened, `FILE:LINE`"}},
			Action: func(c *cli.Context) error {
				a, s, se, err := r.actorArgs(c, 1, -1, "MESSAGE [--at FILE:LINE]")
				if err != nil {
					return err
				}
				rep, err := sessions.RecordError(s, se, strings.Join(a, " "), c.String("at"))
				if err != nil {
					return err
				}
				if r.st.json {
					return r.st.emitJSON(map[string]any{"session": se.ID, "signature": rep.Signature, "run": rep.Run, "errors": rep.Errors, "stalls": nonNilSlice(rep.Stalls)})
				}
				r.st.printf("Recorded error %s (%d in a row, %d in this session).\n", rep.Signature, rep.Run, rep.Errors)
				for _, st := range rep.Stalls {
					r.st.warnf("stalled: %s", st.Message)
				}
				return nil
			},
		},
	}
}

// contextCommand is td context: the session's context block at any time.
func (r *runner) contextCommand() *cli.Command {
	return &cli.Command{
		Name:  "context",
		Usage: "print the current session's context: issue, todos, anchors, warnings, next step",
		Description: `The same block td session start prints, for the session as it is now;
it changes nothing.

Examples:
   td context
   td context --format markdown >> agent-prompt.md
   TD_SESSION=ses_c81kd0zz td context --json`,
		Flags: []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			_, s, se, err := r.actorArgs(c, 0, 0, "[--format text|markdown]")
			if err != nil {
				return err
			}
			if err := checkFormat(c.String("format")); err != nil {
				return err
			}
			ctx, err := sessions.ContextOf(s, se, sessions.ContextNow)
			if err != nil {
				return err
			}
			return r.printContext(ctx, c.String("format"))
		},
	}
}
