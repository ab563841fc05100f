package gitrepo

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// BranchHolds reports whether some local branch committed blob at path:
// whether the file at path is blob in a branch's tip or in one of the
// depth commits below it along first parents. It answers "was this
// content committed somewhere?" for content td wrote before the work tree
// moved to another branch, cheaply: a few tree lookups per branch.
func (r *Repo) BranchHolds(path, blob string, depth int) (bool, error) {
	parts, err := splitTreePath(path)
	if err != nil {
		return false, fmt.Errorf("look for %s on the branches: %w", path, err)
	}
	want := plumbing.NewHash(blob)
	var tips []plumbing.Hash
	refs, err := r.storage.IterReferences()
	if err != nil {
		return false, fmt.Errorf("list the branches: %w", err)
	}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), "refs/heads/") {
			tips = append(tips, ref.Hash())
		}
		return nil
	})
	refs.Close()
	if err != nil && err != storer.ErrStop {
		return false, fmt.Errorf("list the branches: %w", err)
	}
	o := r.openObjects()
	defer o.close()
	w := newTreeWalker(o, parts)
	seen := map[plumbing.Hash]bool{}
	for _, h := range tips {
		for i := 0; i <= depth && !seen[h]; i++ {
			seen[h] = true
			c, err := o.readCommit(h)
			if err != nil {
				break // a commit this clone lacks ends the walk
			}
			e, err := w.lookup(0, c.tree)
			if err != nil {
				return false, fmt.Errorf("look for %s at %s: %w", path, h, err)
			}
			if e.found && e.hash == want {
				return true, nil
			}
			if len(c.parent) == 0 {
				break
			}
			h = c.parent[0]
		}
	}
	return false, nil
}
