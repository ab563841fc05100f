package gitrepo

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// What td check --base needs to cost what a range changed: the files two
// commits' trees differ in, found by comparing object names so that a
// directory whose tree is the same in both is never read, and single
// directories read once and searched by name, so that a directory of
// 100,000 issue files is neither listed into a map nor sorted.

// TreeChange is one file that differs between two commits below a
// directory: added, deleted, or with another object name or mode.
type TreeChange struct {
	// Path is relative to the work tree root, slash-separated.
	Path string
	// From is the file in the first commit, To in the second; a zero Mode
	// means that commit does not have it.
	From, To TreeFile
}

// DiffTrees returns the commits from and to name and the files below dir
// that differ between them, sorted by path. Directories whose tree has the
// same object name in both are skipped unread; a changed directory's two
// tree objects are walked side by side once, both being sorted. Submodules
// are left out; a name that is a file on one side and a directory on the
// other is a deleted file and added files (or the reverse). The error
// wraps ErrUnknownRevision when either revision names no commit.
func (r *Repo) DiffTrees(from, to, dir string) (fromCommit, toCommit string, changes []TreeChange, err error) {
	parts, err := splitTreePath(dir)
	if err != nil {
		return "", "", nil, fmt.Errorf("compare %s: %w", dir, err)
	}
	o := r.openObjects()
	defer o.close()
	var ends [2]treeEntry
	var commits [2]plumbing.Hash
	for i, rev := range []string{from, to} {
		var c *Commit
		if commits[i], c, err = o.commitAt(rev); err != nil {
			return "", "", nil, err
		}
		if ends[i], err = newTreeWalker(o, parts).lookup(0, c.tree); err != nil {
			return "", "", nil, fmt.Errorf("compare %s at %s: %w", dir, rev, err)
		}
	}
	if err := o.diffEntries(dir, ends[0], ends[1], &changes, 0); err != nil {
		return "", "", nil, fmt.Errorf("compare %s between %s and %s: %w", dir, from, to, err)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return commits[0].String(), commits[1].String(), changes, nil
}

// diffEntries appends the files at or below path p that differ between
// entry a and entry b.
func (o *historyReader) diffEntries(p string, a, b treeEntry, out *[]TreeChange, depth int) error {
	if a == b {
		return nil
	}
	if depth > maxListDepth {
		return fmt.Errorf("%s is nested more than %d directories deep", p, maxListDepth)
	}
	aTree, bTree := a.found && a.mode&modeTypeMask == modeTree, b.found && b.mode&modeTypeMask == modeTree
	if aTree || bTree {
		var ad, bd []byte
		var err error
		if aTree {
			if ad, err = o.treeData(a.hash); err != nil {
				return err
			}
		}
		if bTree {
			if bd, err = o.treeData(b.hash); err != nil {
				return err
			}
		}
		if err := o.diffTreeData(p, ad, bd, out, depth); err != nil {
			return err
		}
	}
	file := func(e treeEntry, tree bool) TreeFile {
		if !e.found || tree || e.mode&modeTypeMask == modeGitlink {
			return TreeFile{}
		}
		return TreeFile{Path: p, Mode: e.mode, Hash: e.hash.String()}
	}
	fa, fb := file(a, aTree), file(b, bTree)
	if fa.Mode != 0 || fb.Mode != 0 {
		*out = append(*out, TreeChange{Path: p, From: fa, To: fb})
	}
	return nil
}

// diffTreeData walks two raw trees (either may be empty) side by side.
func (o *historyReader) diffTreeData(dir string, a, b []byte, out *[]TreeChange, depth int) error {
	var ea, eb rawEntry
	var err error
	var haveA, haveB bool
	if ea, a, haveA, err = nextRawEntryOf(a); err != nil {
		return err
	}
	if eb, b, haveB, err = nextRawEntryOf(b); err != nil {
		return err
	}
	for haveA || haveB {
		c := 0
		switch {
		case !haveA:
			c = 1
		case !haveB:
			c = -1
		default:
			c = compareEntryNames(ea, eb)
		}
		if c == 0 && bytes.Equal(ea.whole, eb.whole) {
			// The same entry: most of a directory the range barely touched.
			if ea, a, haveA, err = nextRawEntryOf(a); err != nil {
				return err
			}
			if eb, b, haveB, err = nextRawEntryOf(b); err != nil {
				return err
			}
			continue
		}
		var ta, tb treeEntry
		var name []byte
		if c <= 0 {
			if ta, err = rawTreeEntry(ea); err != nil {
				return err
			}
			name = ea.name
		}
		if c >= 0 {
			if tb, err = rawTreeEntry(eb); err != nil {
				return err
			}
			name = eb.name
		}
		if err := o.diffEntries(dir+"/"+string(name), ta, tb, out, depth+1); err != nil {
			return err
		}
		if c <= 0 {
			if ea, a, haveA, err = nextRawEntryOf(a); err != nil {
				return err
			}
		}
		if c >= 0 {
			if eb, b, haveB, err = nextRawEntryOf(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawTreeEntry decodes a raw entry's mode and object name.
func rawTreeEntry(e rawEntry) (treeEntry, error) {
	mode, err := parseMode(e.whole[:bytes.IndexByte(e.whole, ' ')])
	if err != nil {
		return treeEntry{}, err
	}
	return treeEntry{found: true, mode: mode, hash: entryHash(e)}, nil
}

// treeData reads a tree object; the bytes may be shared with the reader's
// cache and must not be modified. A large tree is kept by the Repo (up to
// maxBigTrees of them), since objects do not change.
func (o *historyReader) treeData(h plumbing.Hash) ([]byte, error) {
	if data, ok := o.r.bigTrees[h]; ok {
		return data, nil
	}
	typ, data, err := o.read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.TreeObject {
		return nil, fmt.Errorf("object %s is a %s, not a tree", h, typ)
	}
	if len(data) >= bigTree {
		if o.r.bigTrees == nil || len(o.r.bigTrees) >= maxBigTrees {
			o.r.bigTrees = map[plumbing.Hash][]byte{}
		}
		data = slices.Clone(data)
		o.r.bigTrees[h] = data
	}
	return data, nil
}

// A tree of bigTree bytes or more (about 1,500 entries) is kept by the
// Repo once read; maxBigTrees bounds how many.
const (
	bigTree     = 64 << 10
	maxBigTrees = 8
)

// Dir is one directory of a commit's tree, read once. Its entries are
// found by name with a binary search over the raw tree object, which git
// keeps sorted, so a directory of 100,000 files costs one read and an
// offset per entry.
type Dir struct {
	// Path is relative to the work tree root, slash-separated.
	Path string
	data []byte
	offs []int32 // where each entry starts in data
}

// ReadDirs returns the commit rev names and its directories at dirs ("" for
// the root), each nil when the commit has no directory there. The error wraps
// ErrUnknownRevision when rev names no commit.
func (r *Repo) ReadDirs(rev string, dirs ...string) (string, []*Dir, error) {
	o := r.openObjects()
	defer o.close()
	h, c, err := o.commitAt(rev)
	if err != nil {
		return "", nil, err
	}
	out := make([]*Dir, len(dirs))
	for i, dir := range dirs {
		e := treeEntry{found: true, mode: modeTree, hash: c.tree} // "" is the root
		if dir != "" {
			parts, err := splitTreePath(dir)
			if err != nil {
				return "", nil, fmt.Errorf("read %s at %s: %w", dir, rev, err)
			}
			if e, err = newTreeWalker(o, parts).lookup(0, c.tree); err != nil {
				return "", nil, fmt.Errorf("read %s at %s: %w", dir, rev, err)
			}
		}
		if !e.found || e.mode&modeTypeMask != modeTree {
			continue
		}
		data, err := o.treeData(e.hash)
		if err != nil {
			return "", nil, fmt.Errorf("read %s at %s: %w", dir, rev, err)
		}
		if len(data) < bigTree {
			data = slices.Clone(data) // else kept by the Repo, never changed
		}
		if out[i], err = newDir(dir, data); err != nil {
			return "", nil, fmt.Errorf("read %s at %s: tree %s: %w", dir, rev, e.hash, err)
		}
	}
	return h.String(), out, nil
}

// newDir indexes a raw tree object's entries, refusing one that is cut
// short or out of git's order (a binary search over it would miss names).
func newDir(path string, data []byte) (*Dir, error) {
	if len(data) > 1<<31-1 {
		return nil, fmt.Errorf("tree of %d bytes is too large", len(data))
	}
	d := &Dir{Path: path, data: data}
	var prev rawEntry
	for rest := data; len(rest) > 0; {
		e, next, err := nextRawEntry(rest)
		if err != nil {
			return nil, err
		}
		if len(d.offs) > 0 && compareEntryNames(prev, e) >= 0 {
			return nil, fmt.Errorf("entry %q is out of order", e.name)
		}
		// The mode is what precedes " name\0" and the 20-byte name.
		if _, err := parseMode(e.whole[:len(e.whole)-len(e.name)-2-hashLen]); err != nil {
			return nil, err
		}
		d.offs = append(d.offs, int32(len(data)-len(rest)))
		prev, rest = e, next
	}
	return d, nil
}

// Len is the number of entries, directories included.
func (d *Dir) Len() int { return len(d.offs) }

func (d *Dir) entry(i int) rawEntry {
	e, _, _ := nextRawEntry(d.data[d.offs[i]:]) // checked by newDir
	return e
}

// Name is the name of the i-th entry in git's order. The bytes belong to
// the Dir and must not be modified.
func (d *Dir) Name(i int) []byte { return d.entry(i).name }

// File returns the i-th entry as a file; ok is false for a directory or a
// submodule.
func (d *Dir) File(i int) (f TreeFile, ok bool) {
	if !d.IsFile(i) {
		return TreeFile{}, false
	}
	e := d.entry(i)
	te, _ := rawTreeEntry(e)
	return TreeFile{Path: d.Path + "/" + string(e.name), Mode: te.mode, Hash: te.hash.String()}, true
}

// IsFile reports whether the i-th entry is a file (not a directory or a
// submodule).
func (d *Dir) IsFile(i int) bool {
	e := d.entry(i)
	return !e.dir && !bytes.HasPrefix(e.whole, []byte("160000 "))
}

// Lookup returns the file called name directly in the directory; ok is
// false when there is none (or a directory or a submodule has the name).
func (d *Dir) Lookup(name string) (TreeFile, bool) {
	if d == nil || strings.ContainsRune(name, '/') {
		return TreeFile{}, false
	}
	want := rawEntry{name: []byte(name)}
	i := sort.Search(len(d.offs), func(i int) bool { return compareEntryNames(d.entry(i), want) >= 0 })
	if i == len(d.offs) || !bytes.Equal(d.entry(i).name, want.name) {
		return TreeFile{}, false
	}
	return d.File(i)
}
