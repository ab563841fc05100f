package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// The tree object format, read by the history walks and written by Commit:
// "<octal mode> <name>\0" and a 20-byte object name per entry, sorted as
// git sorts them. go-git's object package decodes whole trees into
// values; here a tree is scanned only as far as the entry looked for, and
// entries are copied as raw bytes when a commit rebuilds a tree.

// Tree entry modes beyond those the index uses.
const modeTree = 0o040000

// treeEntry is what a tree holds at a path: found is false when nothing is
// there.
type treeEntry struct {
	found bool
	mode  uint32
	hash  plumbing.Hash
}

// treeWalker looks one path up in trees, remembering for each tree visited
// (by depth in the path and object name) what lies below it at the rest of
// the path. A tree whose name was seen before costs one map lookup, so the
// trees of commits that did not change the path's directories are never read.
type treeWalker struct {
	o     *historyReader
	parts []string
	memo  []map[plumbing.Hash]treeEntry
	reads []int // trees read at each depth
}

func newTreeWalker(o *historyReader, parts []string) *treeWalker {
	memo := make([]map[plumbing.Hash]treeEntry, len(parts))
	for i := range memo {
		memo[i] = make(map[plumbing.Hash]treeEntry)
	}
	return &treeWalker{o: o, parts: parts, memo: memo, reads: make([]int, len(parts))}
}

// lookup returns the entry at parts[depth:] below the tree named tree.
func (w *treeWalker) lookup(depth int, tree plumbing.Hash) (treeEntry, error) {
	if e, ok := w.memo[depth][tree]; ok {
		return e, nil
	}
	w.reads[depth]++
	e, err := w.o.treeEntry(tree, w.parts[depth])
	if err != nil {
		return treeEntry{}, err
	}
	if e.found && depth+1 < len(w.parts) {
		if e.mode&modeTypeMask == modeTree {
			if e, err = w.lookup(depth+1, e.hash); err != nil {
				return treeEntry{}, err
			}
		} else {
			e = treeEntry{} // a file where the path needs a directory
		}
	}
	w.memo[depth][tree] = e
	return e, nil
}

// treeEntry returns the entry called name in the tree named tree. The tree
// is streamed: a loose tree is inflated only as far as the entry's place in
// the sorted tree, which for a directory of thousands of issue files halves
// the cost on average.
func (o *historyReader) treeEntry(tree plumbing.Hash, name string) (treeEntry, error) {
	typ, rd, err := o.objects.Stream(tree)
	if err != nil {
		return treeEntry{}, err
	}
	if typ != plumbing.TreeObject {
		return treeEntry{}, fmt.Errorf("object %s is a %s, not a tree", tree, typ)
	}
	if o.tr == nil {
		o.tr = bufio.NewReaderSize(rd, 32<<10)
	} else {
		o.tr.Reset(rd)
	}
	e, err := scanTreeEntry(o.tr, name)
	if err != nil {
		return treeEntry{}, fmt.Errorf("read tree %s: %w", tree, err)
	}
	return e, nil
}

// scanTreeEntry reads a tree object's entries ("<octal mode> <name>\0" and
// a 20-byte object name each) for name, stopping where git's sort order
// puts it.
func scanTreeEntry(tr *bufio.Reader, name string) (treeEntry, error) {
	for {
		mode, err := tr.ReadSlice(' ')
		if errors.Is(err, io.EOF) && len(mode) == 0 {
			return treeEntry{}, nil
		}
		if err != nil {
			return treeEntry{}, truncatedEntry(err)
		}
		// The mode is decoded now: ReadSlice reuses the buffer.
		m, err := parseMode(mode[:len(mode)-1])
		if err != nil {
			return treeEntry{}, err
		}
		entryName, err := tr.ReadSlice(0)
		if err != nil {
			return treeEntry{}, truncatedEntry(err)
		}
		match, past := compareTreeName(entryName[:len(entryName)-1], m&modeTypeMask == modeTree, name)
		if match {
			e := treeEntry{found: true, mode: m}
			if _, err := io.ReadFull(tr, e.hash[:]); err != nil {
				return treeEntry{}, truncatedEntry(err)
			}
			return e, nil
		}
		if past {
			return treeEntry{}, nil
		}
		if _, err := tr.Discard(hashLen); err != nil {
			return treeEntry{}, truncatedEntry(err)
		}
	}
}

// truncatedEntry is the error for a tree that ends inside an entry, or
// whose stream fails there.
func truncatedEntry(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, bufio.ErrBufferFull) {
		return errors.New("truncated entry")
	}
	return err
}

// compareTreeName reports whether a tree entry (a directory when dir) is
// called name, and otherwise whether it sorts after any entry that could be:
// git sorts a directory as if its name ended in '/', so a directory called
// name sorts after "name-x" and "name.x" and before "name0".
func compareTreeName(entry []byte, dir bool, name string) (match, past bool) {
	n := min(len(entry), len(name))
	if string(entry[:n]) != name[:n] {
		return false, string(entry[:n]) > name[:n]
	}
	switch {
	case len(entry) == len(name):
		return true, false
	case len(entry) > len(name):
		return false, entry[len(name)] > '/'
	default:
		return false, dir && name[len(entry)] < '/'
	}
}

// isTreeMode reports whether a tree entry's mode is a directory's (40000).
func isTreeMode(mode []byte) bool { return len(mode) == 5 && mode[0] == '4' }

// parseMode decodes a tree entry's octal mode.
func parseMode(mode []byte) (uint32, error) {
	var m uint32
	for _, c := range mode {
		if c < '0' || c > '7' || len(mode) > 7 {
			return 0, fmt.Errorf("bad mode %q", mode)
		}
		m = m<<3 | uint32(c-'0')
	}
	if len(mode) == 0 {
		return 0, errors.New("empty mode")
	}
	return m, nil
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

// nextRawEntryOf reads the first entry of a raw tree's data, reporting
// false at its end, for the walks that go through two trees side by side.
func nextRawEntryOf(data []byte) (rawEntry, []byte, bool, error) {
	if len(data) == 0 {
		return rawEntry{}, nil, false, nil
	}
	e, rest, err := nextRawEntry(data)
	return e, rest, err == nil, err
}

// diffRawTrees lists the entries of cur that differ from prev (a new name,
// another object or another mode) and the names prev had that cur has not,
// walking both sorted trees once.
func diffRawTrees(dir string, cur, prev []byte) ([]FileChange, error) {
	var out []FileChange
	var a, b rawEntry
	var err error
	var haveA, haveB bool
	if a, cur, haveA, err = nextRawEntryOf(cur); err != nil {
		return nil, err
	}
	if b, prev, haveB, err = nextRawEntryOf(prev); err != nil {
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
			if a, cur, haveA, err = nextRawEntryOf(cur); err != nil {
				return nil, err
			}
		}
		if c >= 0 {
			if b, prev, haveB, err = nextRawEntryOf(prev); err != nil {
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

// newRawEntry encodes one tree entry: "<octal mode> <name>\0<object name>".
func newRawEntry(mode uint32, name string, hash [hashLen]byte) rawEntry {
	whole := strconv.AppendUint(nil, uint64(mode), 8)
	whole = append(whole, ' ')
	nameStart := len(whole)
	whole = append(whole, name...)
	whole = append(whole, 0)
	whole = append(whole, hash[:]...)
	return rawEntry{whole: whole, name: whole[nameStart : nameStart+len(name)], dir: mode == modeTree}
}

// entryHash is the object name ending a raw tree entry.
func entryHash(e rawEntry) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], e.whole[len(e.whole)-hashLen:])
	return h
}
