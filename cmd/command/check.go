package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

// CheckOptions are td check's inputs, as parsed from the command line.
type CheckOptions struct {
	// Base is --base: also check the history since this revision ("" to
	// skip the checks that need one).
	Base string
	// Full is --full: with a base, check the work tree, every file, not
	// only the issues the range of commits changed.
	Full bool
}

// checkCommand is td check. runF, when not nil, replaces runCheck.
func (r *runner) checkCommand(runF func(*CheckOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "check .todos against td's rules, and with --base against history (for CI and pre-commit)",
		Description: `Reads every file under .todos with td's parsers and reports each violation
as path:line: message, sorted, then a count on stderr; exit 1 if any:

   parse            every issue, ledger, session, config and security event parses
   file_name        file names are IDs, and an issue's id matches its file name
   one_in_progress  at most one todo of an issue is in progress
   link_target      links point at issues that exist
   link_cycle       child_of, blocked_by and duplicate_of links form no cycle
   security_chain   the hash chain of .todos/security_events.jsonl verifies

With --base REV, td check judges the commits this branch made since it left
REV: HEAD against their merge base (REV itself when the branch is up to
date), as CI sees a pull request. Uncommitted changes are not part of the
range: td check without --base, and the pre-commit hook (td hooks install)
judge those. With --base:

   append_only      every ledger line and security event there is still there,
                    unchanged and in order (lines a union merge interleaved
                    after them are fine)
   written_once     every session identity file there is unchanged
   review_policy    approvals and closures added since obey the review policy,
                    given the ledger before them and the commits' metadata,
                    and their exceptions are audited
   criterion_drop   criteria dropped or deleted since were dropped by an
                    operator session (a criterion_dropped ledger entry)
   status_transition  an issue whose status changed since has a transition
                    to that status among its new ledger entries (a status
                    typed into the file is a violation, not a silent close)
   security_ledger  each security event about an issue added since has its
                    copy in that issue's ledger (a re-hashed, edited event
                    does not)
   claims           work added since (a start, a submission, a criterion
                    ticked) was done by the actor holding the issue's claim
                    (refs/td/claims/*), or while no claim covered it; an
                    operator may tick criteria on anyone's issue, and a
                    claim the issue's ledger ended (closed, approved,
                    reopened, handed back after it was taken) covers nothing

Without --base those seven are skipped, and td check says so. When the
claims rule has work to judge and this clone has no claim refs, td check
says so in a note (notes in --json) instead of passing silently: fetch
them with git fetch origin '+refs/td/claims/*:refs/td/claims/*' (the jobs
td init --ci writes do).

The rules are applied to the issues the range changed (their files and
ledgers, found by comparing the two trees' object names, not by parsing),
with every session, the config and the security events. Links are checked
where the range can have broken them: every link of a changed issue must
resolve, cycles are looked for from the changed issues, and an issue file
the range deleted or renamed has every issue that mentions it read. A pull
request costs what it changed: what it did not change was checked when it
landed.

--full checks the work tree against the merge base instead, every file
parsed and every link followed, uncommitted changes included.

Examples:
   td check
   td check --base main
   td check --base origin/main --json
   td check --base main --full`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "also check the history since this `REV` (its merge base with HEAD)"},
			&cli.BoolFlag{Name: "full", Usage: "with --base, check the work tree, every file, not only the issues the range changed"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--base REV]"); err != nil {
				return err
			}
			o := &CheckOptions{Base: c.String("base"), Full: c.Bool("full")}
			if runF != nil {
				return runF(o)
			}
			return r.runCheck(o)
		},
	}
}

// runCheck reports every violation of td's rules, a count on stderr, and
// fails when there is any.
func (r *runner) runCheck(o *CheckOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	rep, err := review.Check(s, review.CheckOptions{Base: o.Base, Full: o.Full})
	if err != nil {
		return err
	}
	err = r.st.export(func() any {
		return map[string]any{"ok": rep.OK(), "base": rep.Base, "base_commit": rep.BaseCommit, "head_commit": rep.HeadCommit,
			"files": rep.Files, "issues": rep.Issues, "skipped": rep.Skipped, "violations": rep.Violations,
			"warnings": rep.Warnings, "notes": rep.Notes}
	}, func() error {
		// One write: a broken tree can have thousands of lines.
		var b strings.Builder
		for _, v := range rep.Violations {
			b.WriteString(v.String())
			b.WriteByte('\n')
		}
		r.st.printf("%s", safe(b.String()))
		for _, w := range rep.Warnings {
			fmt.Fprintf(r.st.errOut, "warning: %s\n", safe(w.String()))
		}
		for _, n := range rep.Notes {
			fmt.Fprintln(r.st.errOut, "note: "+safe(n))
		}
		fmt.Fprintln(r.st.errOut, checkSummary(rep))
		return nil
	})
	if err != nil {
		return err
	}
	if !rep.OK() {
		return silentFailure{}
	}
	return nil
}

// checkSummary is td check's last line: the count and what was compared.
func checkSummary(rep *review.CheckReport) string {
	n := len(rep.Violations)
	s := fmt.Sprintf("td check: %s in %s (%s)", domain.Plural(n, "1 violation", fmt.Sprintf("%d violations", n)),
		domain.Plural(rep.Files, "1 file", fmt.Sprintf("%d files", rep.Files)), domain.Plural(rep.Issues, "1 issue", fmt.Sprintf("%d issues", rep.Issues)))
	if rep.HeadCommit != "" {
		return s + fmt.Sprintf(" at HEAD %s, against %s (merge base %s).", shortHash(rep.HeadCommit), rep.Base, shortHash(rep.BaseCommit))
	}
	if rep.Base != "" {
		return s + fmt.Sprintf(" in the work tree, against %s (merge base %s).", rep.Base, shortHash(rep.BaseCommit))
	}
	return s + fmt.Sprintf("; skipped %s, which need a base: pass --base REV.", strings.Join(rep.Skipped, ", "))
}
