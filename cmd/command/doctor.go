package command

import (
	"fmt"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/doctor"
	"github.com/urfave/cli/v2"
)

// DoctorOptions are td doctor's inputs, as parsed from the command line.
type DoctorOptions struct {
	// Fix is --fix: repair what td can.
	Fix bool
	// Idle is --idle: how long a session may be quiet before its local
	// state is stale (0 for doctor.DefaultIdle).
	Idle time.Duration
}

// doctorCommand is td doctor. runF, when not nil, replaces runDoctor.
func (r *runner) doctorCommand(runF func(*DoctorOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check this checkout's setup for td: merge driver, .gitattributes, hooks, caches, sessions, claims, harnesses",
		Description: `td check reads the committed files; td doctor checks what lives beside them
in this clone:

   merge_driver      git config registers td's merge driver (merge.td.driver)
   gitattributes     .gitattributes sends issue files to it and ledgers to union
   hooks             td's git hooks, when installed, are all there and current
   caches            the caches under .todos/local are readable
   issue_files       every issue file parses (td check reports the same as
                     invalid; fix such a file by hand: td never rewrites it)
   unfinished_merge  no merge left a file under .todos conflicted
   idle_sessions     no session's local state has been idle longer than --idle
                     (default 720h, 30 days)
   stray_claims      no claim covers work that is over or nowhere: its issue's
                     ledger ended the work after it was taken (closed,
                     approved, reopened, handed back), the issue is in no
                     branch of this clone, or the work tree holding the
                     claim is gone or has the issue open or closed (td help
                     claims)
   expired_claims    no claim's lease has ended unrenewed on work still going
   harness_hooks     each agent harness whose config holds td's hooks holds
                     every event this td installs
   harness_trust     each such harness will run them: Codex trusts the
                     folder and each of td's hooks (~/.codex/config.toml),
                     the Gemini CLI and Claude Code trust the folder; the
                     step to take when not

A "harness" line follows for each installed harness: whether it runs
td's hooks, or what td cannot tell (td help harnesses).

One line per problem, exit 1 if any. --fix repairs what td can (registers
the driver, adds the .gitattributes lines, rewrites td's hooks, rebuilds the
caches, prunes the idle sessions' local state, releases stray claims, adds
a harness's missing events) and
prints what it fixed; a claim whose lease ended on work still going is
left to td reclaim, which is audited.
See td help conflicts.

Examples:
   td doctor
   td doctor --fix
   td doctor --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "repair what td can"},
			&cli.DurationFlag{Name: "idle", Usage: "a session quiet this `LONG` (such as 168h) is stale"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--fix] [--idle DURATION]"); err != nil {
				return err
			}
			o := &DoctorOptions{Fix: c.Bool("fix"), Idle: c.Duration("idle")}
			if o.Idle < 0 {
				return usagef("--idle must be a positive duration such as 168h")
			}
			if runF != nil {
				return runF(o)
			}
			return r.runDoctor(o)
		},
	}
}

// runDoctor prints one line per problem and fails when any remains.
func (r *runner) runDoctor(o *DoctorOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	rep, err := doctor.Run(s, doctor.Options{Fix: o.Fix, Idle: o.Idle, Harnesses: doctorHarnesses(s)})
	if err != nil {
		return err
	}
	left := rep.Remaining()
	err = r.st.export(func() any {
		return map[string]any{"ok": left == 0, "checks": rep.Checks, "problems": rep.Problems, "harnesses": nonNilSlice(rep.Harnesses)}
	}, func() error {
		for _, p := range rep.Problems {
			where := p.Check
			if p.Path != "" {
				where += ": " + p.Path
			}
			if p.Fixed {
				r.st.printf("fixed %s: %s\n", where, safe(p.Message))
			} else {
				r.st.printf("%s: %s\n", where, safe(p.Message))
			}
		}
		for _, l := range harnessSummary(rep.Harnesses) {
			r.st.printf("harness %s\n", safe(l))
		}
		switch {
		case len(rep.Problems) == 0:
			r.st.printf("No problems found (%d checks).\n", len(rep.Checks))
		case left == 0:
			r.st.printf("Fixed %d %s.\n", len(rep.Problems), domain.Plural(len(rep.Problems), "problem", "problems"))
		default:
			fixable := 0
			for _, p := range rep.Problems {
				if p.Fixable && !p.Fixed {
					fixable++
				}
			}
			hint := ""
			if fixable > 0 {
				hint = fmt.Sprintf("; td doctor --fix repairs %d", fixable)
			}
			r.st.printf("%d %s%s.\n", left, domain.Plural(left, "problem", "problems"), hint)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if left > 0 {
		return silentFailure{}
	}
	return nil
}
