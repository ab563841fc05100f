package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// patchSplit stages changes into the split index raw (laid out as split)
// as git writes one: the shared index is read, never written, and the new
// .git/index holds the shared entries' deletions and replacements and the
// added entries. It reports false when it leaves the change to the whole
// index (expandSplitIndex, then the patcher): when more than
// maxSplitChange percent of the shared entries would differ, as git then
// writes a new shared index, or for what it does not handle (a file that
// becomes a directory or the reverse, skip-worktree and intent-to-add
// entries, mandatory extensions). At 100,000 issues a split index turns
// the 19 MB rewrite and checksum of a one-issue change into a few hundred
// bytes.
func patchSplit(gitDir string, raw []byte, split *scannedIndex, indexMtime uint32, changes []*change, trustExecBit func() bool) (*indexImage, bool, error) {
	be := binary.BigEndian
	link := split.link
	if len(link) <= hashLen {
		return nil, false, nil
	}
	if sum := sha1.Sum(raw[:len(raw)-hashLen]); !isZero(raw[len(raw)-hashLen:]) && !bytes.Equal(sum[:], raw[len(raw)-hashLen:]) {
		return nil, false, nil // expandSplitIndex says what is wrong
	}
	sharedPath := filepath.Join(gitDir, "sharedindex."+hex.EncodeToString(link[:hashLen]))
	f, err := os.Open(sharedPath)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, nil
	}
	shared, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, false, nil
	}
	defer unmap()
	if len(shared) < indexHeaderLen+hashLen || string(shared[:4]) != indexSignature ||
		!bytes.Equal(shared[len(shared)-hashLen:], link[:hashLen]) {
		return nil, false, nil
	}
	sharedVersion := be.Uint32(shared[4:])
	if sharedVersion != 2 && sharedVersion != 3 {
		return nil, false, nil
	}
	n := int(be.Uint32(shared[8:]))
	if n > len(shared)/entryFixedLen {
		return nil, false, nil
	}
	deleted, replaced := make([]bool, n), make([]bool, n)
	used, err := readEWAH(link[hashLen:], deleted)
	if err != nil {
		return nil, false, nil
	}
	if _, err := readEWAH(link[hashLen+used:], replaced); err != nil {
		return nil, false, nil
	}
	nRepl := 0
	for _, b := range replaced {
		if b {
			nRepl++
		}
	}
	if nRepl > len(split.entries) {
		return nil, false, nil
	}
	oldRepl, oldAdds := split.entries[:nRepl], split.entries[nRepl:]

	var (
		newRepl  = map[int][]byte{} // shared position -> its replacing entry (with its name)
		reuse    = make([]int, len(changes))
		changed  []string
		modified bool
		k        int // next of oldRepl
	)
	for i := range reuse {
		reuse[i] = -1
	}
	racy := func(e []byte) bool {
		return indexMtime != 0 && be.Uint32(e[entryModeOffset:])&modeTypeMask != modeGitlink &&
			be.Uint32(e[entryMtimeOff:]) >= indexMtime && be.Uint32(e[entrySizeOffset:]) != 0
	}
	smudged := func(e []byte) []byte {
		e = slices.Clone(e)
		be.PutUint32(e[entrySizeOffset:], 0)
		return e
	}
	// take looks for a change to the entry named name, whose current
	// content is cur (with its flags), at shared position pos (-1 for an
	// added entry), and reports whether the entry goes, and false for
	// what patchSplit leaves to the whole index.
	ci := 0 // the shared entries come in order: the first change not before them
	take := func(name []byte, cur []byte, flags, xflags uint16, pos int) (drop, ok bool) {
		for _, c := range changes {
			if c.conflictsWith(name) {
				return false, false
			}
		}
		j := -1
		if pos >= 0 {
			for ci < len(changes) && changes[ci].path < string(name) {
				ci++
			}
			if ci < len(changes) && changes[ci].path == string(name) {
				j = ci
			}
		} else if i, found := slices.BinarySearchFunc(changes, name, func(c *change, name []byte) int {
			return -bytes.Compare(name, []byte(c.path))
		}); found {
			j = i
		}
		if j < 0 {
			return false, true
		}
		if xflags&(xflagSkipWorktree|xflagIntentToAdd) != 0 {
			return false, false
		}
		c := changes[j]
		stage := int(flags&flagStageMask) >> 12
		c.noteReplaced(be.Uint32(cur[entryModeOffset:]), cur[entryHashOffset:entryHashOffset+hashLen], stage)
		if c.remove {
			changed = append(changed, c.path)
		}
		if stage == 0 && pos >= 0 {
			reuse[j] = pos
		}
		modified = true
		return true, true
	}

	// The shared entries, in order.
	body := len(shared) - hashLen
	off := indexHeaderLen
	sharedPos := map[int][]byte{} // the shared entries a change drops, by position
	for i := range n {
		rec, err := readIndexRecord(shared, off, body, sharedVersion)
		if err != nil {
			return nil, false, nil
		}
		entry := shared[off : off+rec.size]
		off += rec.size
		if deleted[i] {
			if replaced[i] {
				return nil, false, nil
			}
			continue
		}
		cur, flags, xflags := entry, rec.flags, rec.xflags
		if replaced[i] {
			r := oldRepl[k]
			k++
			if len(r.name) != 0 {
				return nil, false, nil
			}
			cur = encodeEntry(split.data[r.off:r.off+entryFixedLen], r.flags, r.xflags, rec.name)
			flags, xflags = r.flags, r.xflags
		}
		drop, ok := take(rec.name, cur, flags, xflags, i)
		if !ok {
			return nil, false, nil
		}
		switch {
		case drop:
			deleted[i], replaced[i] = true, false
			sharedPos[i] = entry
		case racy(cur):
			replaced[i], newRepl[i] = true, smudged(cur)
		case replaced[i]:
			newRepl[i] = cur
		}
	}

	// The added entries.
	var adds [][]byte
	for _, a := range oldAdds {
		if len(a.name) == 0 {
			return nil, false, nil
		}
		e := split.data[a.off : a.off+a.size]
		drop, ok := take(a.name, e, a.flags, a.xflags, -1)
		if !ok {
			return nil, false, nil
		}
		switch {
		case drop:
		case racy(e):
			adds = append(adds, smudged(e))
		default:
			adds = append(adds, e)
		}
	}

	// The changes' own entries: a shared position they replace, or added.
	for j, c := range changes {
		if c.remove {
			continue
		}
		mode := c.indexMode(trustExecBit)
		e := appendEntry(nil, c, mode)
		modified = true
		if !c.unchanged(mode) {
			changed = append(changed, c.path)
		}
		if i := reuse[j]; i >= 0 {
			if bytes.Equal(e, sharedPos[i]) {
				deleted[i] = false
				continue
			}
			deleted[i], replaced[i], newRepl[i] = false, true, e
			continue
		}
		adds = append(adds, e)
	}
	if !modified {
		return nil, true, nil
	}
	slices.SortStableFunc(adds, compareEntries)

	count := len(adds)
	for i := range n {
		if deleted[i] || replaced[i] {
			count++
		}
	}
	if count*100 > n*maxSplitChange {
		return nil, false, nil
	}

	// Extensions: as the patcher treats them.
	var exts [][]byte
	for _, x := range split.exts {
		sig := string(x[:4])
		switch {
		case sig[0] < 'A' || sig[0] > 'Z':
			return nil, false, nil
		case sig == "TREE":
			if tree := invalidateTree(x[8:], changed); tree != nil {
				exts = append(exts, append(append([]byte("TREE"), be.AppendUint32(nil, uint32(len(tree)))...), tree...))
			}
		case sig == "REUC":
			exts = append(exts, x)
		}
	}

	newLink := append(slices.Clone(link[:hashLen]), encodeEWAH(deleted)...)
	newLink = append(newLink, encodeEWAH(replaced)...)
	out := make([]byte, 0, 4096)
	out = append(out, indexSignature...)
	out = be.AppendUint32(out, split.version)
	nEntries := len(adds)
	for i := range n {
		if replaced[i] {
			nEntries++
		}
	}
	out = be.AppendUint32(out, uint32(nEntries))
	for i := range n {
		if !replaced[i] {
			continue
		}
		e := newRepl[i]
		flags := be.Uint16(e[entryFlagsOff:])
		var xflags uint16
		if flags&flagExtended != 0 {
			xflags = be.Uint16(e[entryFixedLen:])
		}
		out = append(out, encodeEntry(e[:entryFixedLen], flags, xflags, nil)...)
	}
	for _, e := range adds {
		out = append(out, e...)
	}
	out = append(out, "link"...)
	out = be.AppendUint32(out, uint32(len(newLink)))
	out = append(out, newLink...)
	for _, x := range exts {
		out = append(out, x...)
	}
	sum := sha1.Sum(out)
	now := time.Now()
	_ = os.Chtimes(sharedPath, now, now) // as git does: a shared index in use does not expire
	return wholeImage(append(out, sum[:]...)), true, nil
}

// compareEntries orders two encoded entries by name, then stage.
func compareEntries(a, b []byte) int {
	an, as := entryKey(a)
	bn, bs := entryKey(b)
	if c := bytes.Compare(an, bn); c != 0 {
		return c
	}
	return as - bs
}

// entryKey returns an encoded entry's name and stage.
func entryKey(e []byte) ([]byte, int) {
	flags := binary.BigEndian.Uint16(e[entryFlagsOff:])
	fixed := entryFixedLen
	if flags&flagExtended != 0 {
		fixed += 2
	}
	nameLen := int(flags & flagNameMask)
	if nameLen == flagNameMask {
		nameLen = bytes.IndexByte(e[fixed:], 0)
	}
	return e[fixed : fixed+nameLen], int(flags&flagStageMask) >> 12
}
