package command

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/review"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// guardCommands are td guard and td hooks: scope checks for a session's changes.
func (r *runner) guardCommands() []*cli.Command {
	return []*cli.Command{r.guardCommand(nil), r.hooksCommand()}
}

// GuardOptions are td guard's inputs, as parsed from the command line.
type GuardOptions struct {
	// Session is --session: the session judged ("" for the current one,
	// or nobody).
	Session string
	// Paths are the files to check as if about to be edited; none checks
	// the staged changes (--staged).
	Paths []string
	// Quiet prints nothing when every path is allowed: --quiet, and always
	// when git's pre-commit hook runs td (git sets GIT_INDEX_FILE), so a
	// commit is silent when all is well.
	Quiet bool
}

// guardCommand is td guard. runF, when not nil, replaces runGuard.
func (r *runner) guardCommand(runF func(*GuardOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "guard",
		Usage:     "check a change against what the current session may change",
		ArgsUsage: "[--staged | PATH...]",
		Description: `Scopes: a project agent may change user code and issue files, and meta
paths only through td; a meta agent may change meta paths and issue files,
never user code; operators may change anything. Meta paths are those config
meta_paths lists (config, ledgers, sessions, anchors, .gitattributes) and
git's own files, hooks included. .todos/local is never committed and not
checked.

With --staged (the default when no PATH is given) td guard checks what git
commit would record: the index against HEAD, or the index git names in
GIT_INDEX_FILE while a hook runs. A staged meta path passes for a project
agent when td itself wrote that content (td keeps a journal of its writes
under .todos/local), or when a merge in progress brought it. With PATHs it
checks the named files as if the session were about to edit them.

The staged changes are also held to the history rules td check --base
applies in CI, against HEAD (against the merge base while a merge is
concluded): statuses move only through td, ledgers and security events
only grow, approvals and closes obey the review policy in commit order.
Those hold for operators too. Only the issues the commit touches are read.

Each refused path is printed as "path: reason", each broken rule as
"path:line: message", and the exit status is 1; otherwise one OK line. td hooks install makes git run td guard --staged
before every commit.

Examples:
   td guard
   td guard --staged --json
   td guard src/main.go .todos/config.yaml
   TD_SESSION=ses_qmt3y9ft td guard .todos/history/td-k3x9qa.jsonl`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "staged", Usage: "check the staged changes (the default without PATHs)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing when every path is allowed (the default from git's pre-commit hook)"},
		},
		Action: func(c *cli.Context) error {
			paths := c.Args().Slice()
			fromHook := len(paths) == 0 && r.getenv("GIT_INDEX_FILE") != ""
			if fromHook {
				r.ran = "" // git's pre-commit hook, not an action the session took
			}
			if c.Bool("staged") && len(paths) > 0 {
				return usagef("give --staged or PATHs, not both; td guard --help shows the usage")
			}
			o := &GuardOptions{Session: c.String("session"), Paths: paths, Quiet: c.Bool("quiet") || fromHook}
			if runF != nil {
				return runF(o)
			}
			return r.runGuard(o)
		},
	}
}

// runGuard checks the paths, or the staged changes, against the session's
// scope and prints what it refused.
func (r *runner) runGuard(o *GuardOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	se, err := r.currentSession(s, o.Session)
	if err != nil {
		return err
	}
	var rep *sessions.GuardReport
	var committed *review.CheckReport
	if len(o.Paths) > 0 {
		rep, err = sessions.GuardPaths(s, se, r.runDir(), o.Paths)
	} else if rep, err = sessions.GuardStaged(s, se); err == nil {
		committed, err = review.CheckStaged(s, s.Env("GIT_INDEX_FILE"))
	}
	if err != nil {
		return err
	}
	return r.printGuard(&guardResult{GuardReport: rep, committed: committed}, o.Quiet)
}

// guardResult is td guard's answer: the scope verdict on each path and,
// for the staged changes, what td check --base would flag in them.
type guardResult struct {
	*sessions.GuardReport
	committed  *review.CheckReport
	Violations []review.Violation `json:"violations"`
}

// printGuard reports the check: the refused paths, or one OK line. A
// refusal fails the command; with --json the report says what, and the
// exit status that it failed.
func (r *runner) printGuard(rep *guardResult, quiet bool) error {
	refused := rep.Refused()
	rep.Violations = []review.Violation{}
	if rep.committed != nil {
		rep.Violations = rep.committed.Violations
	}
	err := r.st.export(func() any {
		if rep.Checked == nil {
			rep.Checked = []sessions.GuardCheck{}
		}
		return rep
	}, func() error {
		if len(rep.Violations) > 0 {
			for _, c := range refused {
				r.st.printf("%s: %s\n", c.Path, c.Reason)
			}
			for _, v := range rep.Violations {
				r.st.printf("%s\n", safe(v.String()))
			}
			n := len(rep.Violations)
			msg := fmt.Sprintf("the staged changes to .todos break %d %s td check --base would flag in CI; make the change with td, or restore what was edited by hand (git diff --cached .todos shows it)",
				n, domain.Plural(n, "rule", "rules"))
			if len(refused) > 0 {
				msg = fmt.Sprintf("%s may not commit %d of %d staged %s, and %s", guardActor(rep.GuardReport), len(refused), len(rep.Checked), domain.Plural(len(rep.Checked), "path", "paths"), msg)
			}
			return &repo.Error{Code: repo.CodeRefused, Msg: msg}
		}
		what := "path"
		if rep.Staged {
			what = "staged path"
		}
		n := len(rep.Checked)
		if len(refused) == 0 {
			if quiet {
				return nil
			}
			if n == 0 {
				r.st.printf("OK: nothing staged.\n")
				return nil
			}
			r.st.printf("OK: %d %s within the scope of %s.\n", n, domain.Plural(n, what, what+"s"), guardActor(rep.GuardReport))
			return nil
		}
		for _, c := range refused {
			r.st.printf("%s: %s\n", c.Path, c.Reason)
		}
		if rep.Staged {
			it := domain.Plural(len(refused), "it", "them")
			return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s may not commit %d of %d staged %s; unstage %s with git restore --staged PATH, or leave %s to a session whose scope covers %s",
				guardActor(rep.GuardReport), len(refused), n, domain.Plural(n, "path", "paths"), it, it, it)}
		}
		return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s may not change %d of %d %s", guardActor(rep.GuardReport), len(refused), n, domain.Plural(n, "path", "paths"))}
	})
	if err == nil && (len(refused) > 0 || len(rep.Violations) > 0) {
		return silentFailure{} // the JSON report named them
	}
	return err
}

// guardActor names who the guard judged: the session and what it counts
// as, or the git author when no session acts yet.
func guardActor(rep *sessions.GuardReport) string {
	kind := rep.Role
	if rep.Role == domain.RoleAgent {
		kind = domain.Role(string(rep.Category) + " agent")
	}
	if rep.Session == "" {
		return fmt.Sprintf("%s (%s, no session)", rep.Author, kind)
	}
	return fmt.Sprintf("%s (%s)", rep.Session, kind)
}
