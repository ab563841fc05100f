package command

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/resolve"
	"github.com/urfave/cli/v2"
)

// ResolveOptions are td resolve's inputs, as parsed from the command line.
type ResolveOptions struct {
	// Paths are the files or directories to resolve, as typed (relative to
	// the working directory); none means every conflicted file under .todos.
	Paths []string
}

// resolveCommand is td resolve. runF, when not nil, replaces runResolve.
func (r *runner) resolveCommand(runF func(*ResolveOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "finish a git merge that stopped on conflicts in .todos, with td's merge rules",
		ArgsUsage: "[PATH...]",
		Description: `After a merge that stopped on conflicts under .todos (a hosting service's
merge, a clone without td's merge driver, todos ticked on adjacent lines),
td resolve merges each conflicted file again from the three versions git
keeps in the index (base, ours, theirs), as td's merge driver does: issue
files field by field and todo by todo, ledgers (*.jsonl) by union. A file
that merges cleanly is written and staged; a real conflict stays marked as
git left it, with one line per conflict naming what both sides changed.
Where both sides moved an issue's status, the status the last transition
of the merged ledger gives is the one td check --base accepts: td resolve
keeps it when the rest merges, and says which it is either way. It works
in any clone, td-initialised or not.
A file whose markers are gone (edited by hand) is left alone. Exit 1 when
any conflict remains. See td help conflicts.

Examples:
   td resolve
   td resolve .todos/issues/td-k3x9qa.md
   td resolve --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, -1, "[PATH...]")
			if err != nil {
				return err
			}
			o := &ResolveOptions{Paths: a}
			if runF != nil {
				return runF(o)
			}
			return r.runResolve(o)
		},
	}
}

// runResolve re-merges the conflicted files and reports each one.
func (r *runner) runResolve(o *ResolveOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	var paths []string
	if len(o.Paths) > 0 {
		g, err := s.GitRepo()
		if err != nil {
			return err
		}
		for _, p := range o.Paths {
			abs, err := filepath.Abs(r.path(p))
			if err != nil {
				return err
			}
			rel := abs
			if g != nil {
				if rp, err := filepath.Rel(g.Root(), abs); err == nil {
					rel = rp
				}
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
	}
	res, err := resolve.Resolve(s, paths)
	if err != nil {
		return err
	}
	left := len(res.Files) - res.Merged()
	err = r.st.export(func() any { return res }, func() error {
		if len(res.Files) == 0 {
			r.st.printf("No conflicted files under .todos.\n")
			return nil
		}
		for _, f := range res.Files {
			if f.Merged {
				line := "merged " + f.Path
				if f.Note != "" {
					line += "; " + f.Note
				}
				r.st.printf("%s\n", safe(line))
				continue
			}
			if len(f.Conflicts) == 0 {
				r.st.printf("%s\n", safe(f.Path+": "+f.Note))
			}
			for _, c := range f.Conflicts {
				line := fmt.Sprintf("%s: both sides changed %s", f.Path, c)
				if f.Note != "" && (len(f.Conflicts) == 1 || c == resolve.StatusConflict) {
					line += "; " + f.Note
				}
				r.st.printf("%s\n", safe(line))
			}
		}
		var parts []string
		if n := res.Merged(); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s merged and staged", n, domain.Plural(n, "file", "files")))
		}
		if left > 0 {
			parts = append(parts, fmt.Sprintf("%d still conflicted: edit the marked regions, then git add %s and commit", left, domain.Plural(left, "it", "them")))
		} else {
			parts = append(parts, "commit to finish the merge")
		}
		r.st.printf("%s.\n", strings.Join(parts, "; "))
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
