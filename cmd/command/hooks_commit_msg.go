package command

import (
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// HooksCommitMsgOptions are td hooks commit-msg's inputs, as git's hook
// passes them.
type HooksCommitMsgOptions struct {
	// Session is --session: the session named in the trailer ("" for the
	// current one, or nobody).
	Session string
	// File is the commit message file.
	File string
}

// hooksCommitMsgCommand is td hooks commit-msg. runF, when not nil,
// replaces runHooksCommitMsg.
func (r *runner) hooksCommitMsgCommand(runF func(*HooksCommitMsgOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "commit-msg",
		Usage:     "run by the commit-msg hook: add a Td-Session trailer to an edited message",
		ArgsUsage: "FILE",
		Description: `Adds "Td-Session: <id>" for the current session to the final commit
message in FILE, unless it is empty (git then aborts the commit), already
has the trailer, or concludes a merge or a squash.

Examples:
   td hooks commit-msg .git/COMMIT_EDITMSG`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "FILE")
			if err != nil {
				return err
			}
			o := &HooksCommitMsgOptions{Session: c.String("session"), File: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runHooksCommitMsg(o)
		},
	}
}

// runHooksCommitMsg adds the trailer to the message as edited.
func (r *runner) runHooksCommitMsg(o *HooksCommitMsgOptions) error {
	return r.runTrailer(o.Session, func(s *repo.Store, se *repo.Session) (string, error) {
		return sessions.CommitMsg(s, se, o.File)
	})
}
