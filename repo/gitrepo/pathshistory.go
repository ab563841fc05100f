package gitrepo

import (
	"errors"
	"fmt"
)

// CommitPaths is one commit that changed some of the paths PathsHistory
// watches.
type CommitPaths struct {
	Commit *Commit
	Paths  []string // the watched paths it changed, in the order given
}

// PathsHistory is PathHistory for several paths in one walk: the commits
// reachable from HEAD that changed any of them, newest first by committer
// time, each with the paths it changed. One walk gives one order, so that
// commits made in the same second keep the order history gives them, which
// two separate walks could not tell. limit <= 0 means no limit; on a branch
// without commits the result is empty.
func (r *Repo) PathsHistory(paths []string, limit int) ([]CommitPaths, error) {
	o := r.openObjects()
	defer o.close()
	walkers := make([]*treeWalker, len(paths))
	for i, p := range paths {
		parts, err := splitTreePath(p)
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", p, err)
		}
		walkers[i] = newTreeWalker(o, parts)
	}
	head, err := o.resolve("HEAD")
	if errors.Is(err, errUnborn) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history of %v: %w", paths, err)
	}
	var out []CommitPaths
	err = o.walk(head, nil, func(c *Commit, parents []*Commit) (bool, error) {
		if c.Shallow {
			return false, nil // what it changed cannot be known
		}
		var changed []string
		for i, w := range walkers {
			mine, err := w.lookup(0, c.tree)
			if err != nil {
				return false, fmt.Errorf("commit %s: %w", c.Hash, err)
			}
			// As in PathHistory: a root commit changed the path when it
			// has it, another commit when it differs from every parent.
			diff := len(parents) > 0 || mine.found
			for _, p := range parents {
				theirs, err := w.lookup(0, p.tree)
				if err != nil {
					return false, fmt.Errorf("commit %s: %w", p.Hash, err)
				}
				if theirs == mine {
					diff = false
				}
			}
			if diff {
				changed = append(changed, paths[i])
			}
		}
		if len(changed) == 0 {
			return false, nil
		}
		out = append(out, CommitPaths{Commit: c, Paths: changed})
		return limit > 0 && len(out) >= limit, nil
	})
	if err != nil {
		return nil, fmt.Errorf("history of %v: %w", paths, err)
	}
	return out, nil
}
