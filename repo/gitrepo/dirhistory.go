package gitrepo

import (
	"bytes"
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

// rawEntry is one entry of a raw tree object.
type rawEntry struct {
	whole []byte // "mode name\0hash", for a quick equality test
	name  []byte
	dir   bool
}

// nextRawEntry cuts the first entry off a raw tree.
func nextRawEntry(data []byte) (rawEntry, []byte, error) {
	sp := bytes.IndexByte(data, ' ')
	if sp < 0 {
		return rawEntry{}, nil, errors.New("tree entry without a mode")
	}
	nul := bytes.IndexByte(data[sp+1:], 0)
	if nul < 0 {
		return rawEntry{}, nil, errors.New("tree entry without a name terminator")
	}
	end := sp + 1 + nul + 1 + 20
	if end > len(data) {
		return rawEntry{}, nil, errors.New("tree entry cut short")
	}
	return rawEntry{whole: data[:end], name: data[sp+1 : sp+1+nul], dir: isTreeMode(data[:sp])}, data[end:], nil
}

// compareEntryNames orders entries as git sorts a tree: by name, with a
// directory's name compared as if it ended in "/".
func compareEntryNames(a, b rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	ca, cb := byte(0), byte(0)
	if len(a.name) > n {
		ca = a.name[n]
	} else if a.dir {
		ca = '/'
	}
	if len(b.name) > n {
		cb = b.name[n]
	} else if b.dir {
		cb = '/'
	}
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

// diffRawTrees lists the entries of cur that differ from prev (a new name,
// another object or another mode) and the names prev had that cur has not,
// walking both sorted trees once.
func diffRawTrees(dir string, cur, prev []byte) ([]FileChange, error) {
	var out []FileChange
	var a, b rawEntry
	var err error
	next := func(data []byte) (rawEntry, []byte, bool, error) {
		if len(data) == 0 {
			return rawEntry{}, nil, false, nil
		}
		e, rest, err := nextRawEntry(data)
		return e, rest, err == nil, err
	}
	var haveA, haveB bool
	if a, cur, haveA, err = next(cur); err != nil {
		return nil, err
	}
	if b, prev, haveB, err = next(prev); err != nil {
		return nil, err
	}
	for haveA || haveB {
		c := 0
		switch {
		case !haveA:
			c = 1
		case !haveB:
			c = -1
		default:
			c = compareEntryNames(a, b)
		}
		switch {
		case c < 0:
			out = append(out, FileChange{Dir: dir, Name: string(a.name), Added: true})
		case c > 0:
			out = append(out, FileChange{Dir: dir, Name: string(b.name), Deleted: true})
		case !bytes.Equal(a.whole, b.whole):
			out = append(out, FileChange{Dir: dir, Name: string(a.name)})
		}
		if c <= 0 {
			if a, cur, haveA, err = next(cur); err != nil {
				return nil, err
			}
		}
		if c >= 0 {
			if b, prev, haveB, err = next(prev); err != nil {
				return nil, err
			}
		}
	}
	sortFileChanges(out)
	return out, nil
}

// parseTreeEntries decodes a raw tree object into name -> mode and object
// name (as one string, so a change of either counts). Sub-trees are
// included by name; the caller watches files.
func parseTreeEntries(data []byte) (map[string]string, error) {
	m := make(map[string]string, len(data)/48)
	for len(data) > 0 {
		e, rest, err := nextRawEntry(data)
		if err != nil {
			return nil, err
		}
		m[string(e.name)] = string(e.whole[:bytes.IndexByte(e.whole, ' ')]) + string(e.whole[len(e.whole)-20:])
		data = rest
	}
	return m, nil
}
