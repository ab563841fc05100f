package command

import (
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// HooksPrepareCommitMsgOptions are td hooks prepare-commit-msg's inputs,
// as git's hook passes them.
type HooksPrepareCommitMsgOptions struct {
	// Session is --session: the session named in the trailer ("" for the
	// current one, or nobody).
	Session string
	// File is the commit message file.
	File string
	// Source is where git's message came from (message, commit, merge,
	// squash, template), "" for none.
	Source string
}

// hooksPrepareCommitMsgCommand is td hooks prepare-commit-msg. runF, when
// not nil, replaces runHooksPrepareCommitMsg.
func (r *runner) hooksPrepareCommitMsgCommand(runF func(*HooksPrepareCommitMsgOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "prepare-commit-msg",
		Usage:     "run by the prepare-commit-msg hook: add a Td-Session trailer",
		ArgsUsage: "FILE [SOURCE [COMMIT]]",
		Description: `Adds "Td-Session: <id>" for the current session to the commit message in
FILE when git prepared one (SOURCE message or commit: git commit -m, -F,
--amend, -c) and it has no such trailer yet. A message still to be written
in the editor is left to the commit-msg hook; merges and squashes get none;
without a current session nothing is added.

Examples:
   td hooks prepare-commit-msg .git/COMMIT_EDITMSG message`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 3, "FILE [SOURCE [COMMIT]]")
			if err != nil {
				return err
			}
			o := &HooksPrepareCommitMsgOptions{Session: c.String("session"), File: a[0]}
			if len(a) > 1 {
				o.Source = a[1]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runHooksPrepareCommitMsg(o)
		},
	}
}

// runHooksPrepareCommitMsg adds the trailer to a message git prepared.
func (r *runner) runHooksPrepareCommitMsg(o *HooksPrepareCommitMsgOptions) error {
	return r.runTrailer(o.Session, func(s *repo.Store, se *repo.Session) (string, error) {
		return sessions.PrepareCommitMsg(s, se, o.File, o.Source)
	})
}
