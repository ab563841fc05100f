package gitrepo

import (
	"bytes"
	"container/heap"
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
	trees := map[plumbing.Hash]map[string]plumbing.Hash{}
	entries := func(e treeEntry) (map[string]plumbing.Hash, error) {
		if !e.found || e.mode&modeTypeMask != modeTree {
			return nil, nil
		}
		if m, ok := trees[e.hash]; ok {
			return m, nil
		}
		typ, data, err := o.read(e.hash)
		if err != nil {
			return nil, err
		}
		if typ != plumbing.TreeObject {
			return nil, fmt.Errorf("object %s is a %s, not a tree", e.hash, typ)
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
	load := o.commitLoader()
	first, err := load(head)
	if err != nil {
		return "", nil, nil, err
	}
	q := &commitQueue{}
	heap.Push(q, queued{commit: first})
	seen := map[plumbing.Hash]bool{head: true}
	var out []DirChange
	var walked []string
	for seq := 1; q.Len() > 0; {
		c := heap.Pop(q).(queued).commit
		walked = append(walked, c.Hash)
		var parents []*Commit
		for _, ph := range c.parent {
			p, err := load(ph)
			if err != nil {
				return "", nil, nil, fmt.Errorf("parent of %s: %w", c.Hash, err)
			}
			parents = append(parents, p)
			if known != nil && known(ph.String()) {
				continue // compared against, never walked past
			}
			if !seen[ph] {
				seen[ph] = true
				heap.Push(q, queued{commit: p, seq: seq})
				seq++
			}
		}
		var files []FileChange
		for di, w := range walkers {
			mine, err := w.lookup(0, c.tree)
			if err != nil {
				return "", nil, nil, fmt.Errorf("commit %s: %w", c.Hash, err)
			}
			theirs := make([]treeEntry, len(parents))
			same := false
			for i, p := range parents {
				if theirs[i], err = w.lookup(0, p.tree); err != nil {
					return "", nil, nil, fmt.Errorf("commit %s: %w", p.Hash, err)
				}
				if theirs[i] == mine {
					same = true
				}
			}
			if same {
				continue
			}
			cur, err := entries(mine)
			if err != nil {
				return "", nil, nil, err
			}
			pm := make([]map[string]plumbing.Hash, len(theirs))
			for i, t := range theirs {
				if pm[i], err = entries(t); err != nil {
					return "", nil, nil, err
				}
			}
			files = append(files, diffEntries(dirs[di], cur, pm)...)
		}
		if len(files) > 0 {
			out = append(out, DirChange{Commit: c, Files: files})
		}
	}
	return head.String(), walked, out, nil
}

// diffEntries lists the names whose hash in cur differs from their hash in
// every parent (absent counts as a hash of its own).
func diffEntries(dir string, cur map[string]plumbing.Hash, parents []map[string]plumbing.Hash) []FileChange {
	var out []FileChange
	differs := func(name string, h plumbing.Hash, present bool) (changed, added bool) {
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
			if changed, _ := differs(name, plumbing.ZeroHash, false); changed {
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

// parseTreeEntries decodes a raw tree object into name -> object name.
// Sub-trees are included by name; the caller watches files.
func parseTreeEntries(data []byte) (map[string]plumbing.Hash, error) {
	m := make(map[string]plumbing.Hash, len(data)/48)
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, errors.New("entry without a mode")
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 {
			return nil, errors.New("entry without a name terminator")
		}
		name := string(data[sp+1 : sp+1+nul])
		rest := data[sp+1+nul+1:]
		if len(rest) < 20 {
			return nil, errors.New("entry cut short")
		}
		var h plumbing.Hash
		copy(h[:], rest[:20])
		m[name] = h
		data = rest[20:]
	}
	return m, nil
}
