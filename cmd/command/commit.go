package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// CommitOptions are td commit's inputs, as parsed from the command line:
// it takes none besides --json and --dir.
type CommitOptions struct{}

// commitCommand is td commit. runF, when not nil, replaces runCommit, so a
// test can check what the command line parses to without a repository.
func (r *runner) commitCommand(runF func(*CommitOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "commit",
		Usage: "commit td's pending writes as one commit (git mode auto with git.batch)",
		Description: `With git.mode: auto and git.batch: true in .todos/config.yaml, td stages
what each command writes and notes its trailers; td commit makes one commit
of exactly those files, on top of HEAD, with every Td-Session, Td-Action and
Td-Issue trailer they noted. Nothing else you staged is part of it, and no
commit is ever amended. The Claude Code Stop hook runs it for you.

With nothing pending it commits nothing and says so. If HEAD has moved to
another branch since the writes, it refuses: check the branch out again.

Examples:
   td todo done "OAuth app"; td comment k3x "callback verified"
   td commit
   td commit --json`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--json]"); err != nil {
				return err
			}
			o := &CommitOptions{}
			if runF != nil {
				return runF(o)
			}
			return r.runCommit(o)
		},
	}
}

// runCommit commits the pending writes and reports the commit.
func (r *runner) runCommit(*CommitOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := s.CommitPending()
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return commitJSON(res)
	}, func() error {
		if res.Hash == "" {
			r.st.printf("Nothing to commit: td has no pending writes.\n")
			return nil
		}
		r.st.printf("Committed %d %s in %s: %s\n", len(res.Paths), domain.Plural(len(res.Paths), "file", "files"), res.Hash[:7], res.Subject)
		return nil
	})
}

// commitJSON is td commit's --json document.
func commitJSON(res repo.PendingCommit) map[string]any {
	if res.Hash == "" {
		return map[string]any{"commit": nil, "paths": []string{}}
	}
	return map[string]any{
		"commit":   res.Hash,
		"subject":  res.Subject,
		"paths":    res.Paths,
		"sessions": res.Sessions,
		"actions":  res.Actions,
		"issues":   res.Issues,
	}
}
