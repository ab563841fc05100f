package command

import (
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// hooksCommand is td hooks, the parent of install and of the commands
// git's hooks run.
func (r *runner) hooksCommand() *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "install git hooks (the scope check before each commit, Td-Session trailers) or an agent harness's hooks",
		Subcommands: []*cli.Command{
			r.hooksInstallCommand(nil),
			r.hooksPrepareCommitMsgCommand(nil),
			r.hooksCommitMsgCommand(nil),
		},
	}
}

// runTrailer runs a commit message hook for the current session (session
// is --session), which may be nobody: then nothing is added. It prints
// nothing but --json, so a commit's output stays git's.
func (r *runner) runTrailer(session string, add func(*repo.Store, *repo.Session) (string, error)) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	se, err := r.currentSession(s, session)
	if err != nil {
		return err
	}
	id, err := add(s, se)
	if err != nil {
		return err
	}
	return r.st.export(func() any { return map[string]any{"session": id, "added": id != ""} }, nil)
}
