package gitrepo

import (
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// FileChange is one file directly inside a watched directory that a commit
// changed: its blob differs from the one in every parent.
type FileChange struct {
	Dir, Name      string
	Added, Deleted bool
}

// DirChange is one commit and the files it changed in the watched
// directories.
type DirChange struct {
	Commit *Commit
	Files  []FileChange
}

// DirHistory walks the commits reachable from HEAD, newest first by
// committer time, and reports each commit that changed a file directly
// inside one of dirs (a file whose blob differs from every parent's, as
// PathHistory counts). A commit for which known returns true is neither
// reported nor walked past: the caller has seen it and its ancestors
// before, which makes an incremental scan cheap. It returns HEAD's hash
// ("" on a branch without commits) and every commit it walked, so the
// caller can mark them known.
//
// One walk serves every file of the directories: a commit whose directory
// tree equals a parent's is skipped after one memoised lookup, and only the
// commits that changed a directory decode it.
func (r *Repo) DirHistory(dirs []string, known func(hash string) bool) (string, []string, []DirChange, error) {
	o := r.openObjects()
	defer o.close()
	head, err := o.resolve("HEAD")
	if errors.Is(err, errUnborn) {
		return "", nil, nil, nil
	}
	if err != nil {
		return "", nil, nil, fmt.Errorf("history of %v: %w", dirs, err)
	}
	walkers := make([]*treeWalker, len(dirs))
	for i, d := range dirs {
		parts, err := splitTreePath(d)
		if err != nil {
			return "", nil, nil, fmt.Errorf("history of %s: %w", d, err)
		}
		walkers[i] = newTreeWalker(o, parts)
	}
	// Decoded directory trees by object name: consecutive commits share
	// one, so each is inflated once per walk.
	raws := map[plumbing.Hash][]byte{}
	rawTree := func(e treeEntry) ([]byte, error) {
		if !e.found || e.mode&modeTypeMask != modeTree {
			return nil, nil
		}
		if b, ok := raws[e.hash]; ok {
			return b, nil
		}
		typ, data, err := o.read(e.hash)
		if err != nil {
			return nil, err
		}
		if typ != plumbing.TreeObject {
			return nil, fmt.Errorf("object %s is a %s, not a tree", e.hash, typ)
		}
		raws[e.hash] = data
		return data, nil
	}
	trees := map[plumbing.Hash]map[string]string{}
	entries := func(e treeEntry) (map[string]string, error) {
		if m, ok := trees[e.hash]; ok && e.found {
			return m, nil
		}
		data, err := rawTree(e)
		if err != nil || data == nil {
			return nil, err
		}
		m, err := parseTreeEntries(data)
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w", e.hash, err)
		}
		trees[e.hash] = m
		return m, nil
	}
	if known != nil && known(head.String()) {
		return head.String(), nil, nil, nil
	}
	var out []DirChange
	var walked []string
	err = o.walk(head, known, func(c *Commit, parents []*Commit) (bool, error) {
		walked = append(walked, c.Hash)
		if c.Shallow {
			return false, nil // what a shallow clone's boundary commit changed is unknown
		}
		var files []FileChange
		for di, w := range walkers {
			mine, err := w.lookup(0, c.tree)
			if err != nil {
				return false, fmt.Errorf("commit %s: %w", c.Hash, err)
			}
			theirs := make([]treeEntry, len(parents))
			same := false
			for i, p := range parents {
				if theirs[i], err = w.lookup(0, p.tree); err != nil {
					return false, fmt.Errorf("commit %s: %w", p.Hash, err)
				}
				if theirs[i] == mine {
					same = true
				}
			}
			if same {
				continue
			}
			if len(theirs) == 1 {
				// The common case, one parent: walk the two sorted trees
				// side by side without building maps.
				cur, err := rawTree(mine)
				if err != nil {
					return false, err
				}
				prev, err := rawTree(theirs[0])
				if err != nil {
					return false, err
				}
				fc, err := diffRawTrees(dirs[di], cur, prev)
				if err != nil {
					return false, fmt.Errorf("commit %s: %w", c.Hash, err)
				}
				files = append(files, fc...)
				continue
			}
			cur, err := entries(mine)
			if err != nil {
				return false, err
			}
			pm := make([]map[string]string, len(theirs))
			for i, t := range theirs {
				if pm[i], err = entries(t); err != nil {
					return false, err
				}
			}
			files = append(files, diffEntries(dirs[di], cur, pm)...)
		}
		if len(files) > 0 {
			out = append(out, DirChange{Commit: c, Files: files})
		}
		return false, nil
	})
	if err != nil {
		return "", nil, nil, err
	}
	return head.String(), walked, out, nil
}

// diffEntries lists the names whose mode and hash in cur differ from those
// in every parent (absent counts as a value of its own).
func diffEntries(dir string, cur map[string]string, parents []map[string]string) []FileChange {
	var out []FileChange
	differs := func(name string, h string, present bool) (changed, added bool) {
		added = true
		for _, p := range parents {
			ph, ok := p[name]
			if ok {
				added = false
			}
			if ok == present && ph == h {
				return false, false
			}
		}
		return true, added
	}
	for name, h := range cur {
		if changed, added := differs(name, h, true); changed {
			out = append(out, FileChange{Dir: dir, Name: name, Added: added})
		}
	}
	gone := map[string]bool{}
	for _, p := range parents {
		for name := range p {
			if _, ok := cur[name]; ok || gone[name] {
				continue
			}
			gone[name] = true
			if changed, _ := differs(name, "", false); changed {
				out = append(out, FileChange{Dir: dir, Name: name, Deleted: true})
			}
		}
	}
	sortFileChanges(out)
	return out
}

func sortFileChanges(fs []FileChange) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
}
