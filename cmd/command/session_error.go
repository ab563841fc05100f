package command

import (
	"strings"

	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionErrorOptions are td session error's inputs, as parsed from the
// command line.
type SessionErrorOptions struct {
	// Session is --session: the session that hit the error ("" for the
	// default).
	Session string
	// Message is the error, the arguments joined by spaces.
	Message string
	// At is --at: where it happened, FILE:LINE.
	At string
}

// sessionErrorCommand is td session error. runF, when not nil, replaces
// runSessionError.
func (r *runner) sessionErrorCommand(runF func(*SessionErrorOptions) error) *cli.Command {
	return &cli.Command{
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
			a, err := args(c, 1, -1, "MESSAGE [--at FILE:LINE]")
			if err != nil {
				return err
			}
			o := &SessionErrorOptions{Session: c.String("session"), Message: strings.Join(a, " "), At: c.String("at")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionError(o)
		},
	}
}

// runSessionError records the error and prints the stalls it sets off.
func (r *runner) runSessionError(o *SessionErrorOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	rep, err := sessions.RecordError(s, se, o.Message, o.At)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return map[string]any{"session": se.ID, "signature": rep.Signature, "run": rep.Run, "errors": rep.Errors, "stalls": nonNilSlice(rep.Stalls)}
	}, func() error {
		r.st.printf("Recorded error %s (%d in a row, %d in this session).\n", rep.Signature, rep.Run, rep.Errors)
		for _, st := range rep.Stalls {
			r.st.warnf("stalled: %s", st.Message)
		}
		return nil
	})
}
