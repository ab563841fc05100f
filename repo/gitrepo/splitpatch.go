package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"time"
)

// maxSplitChange is the share of the shared entries (in percent) that may
// be deleted, replaced or added before td writes the whole index instead:
// git's default for splitIndex.maxPercentChange, past which git writes a
// new shared index.
const maxSplitChange = 20

// errWholeIndex is patchSplit leaving a change to the whole index.
var errWholeIndex = errors.New("the change goes into the whole index")

// patchSplit stages changes into the split index v as git writes one: the
// shared index is read, never written, and the new .git/index holds the
// shared entries' deletions and replacements and the added entries, with
// racily clean entries smudged and the TREE extension invalidated as the
// patcher does. It returns nil when nothing changes, and errWholeIndex
// when it leaves the change to the whole index (v.expand, then the
// patcher): when more than maxSplitChange percent of the shared entries
// would differ, as git then writes a new shared index, or for what it does
// not handle (a file that becomes a directory or the reverse,
// skip-worktree and intent-to-add entries, mandatory extensions). At
// 100,000 issues a split index turns the 19 MB rewrite and checksum of a
// one-issue change into a few hundred bytes.
func patchSplit(v *splitView, indexMtime uint32, changes []*change, trustExecBit func() bool) (*indexImage, error) {
	be := binary.BigEndian
	n := len(v.deleted)
	deleted, replaced := slices.Clone(v.deleted), slices.Clone(v.replaced)
	var (
		newRepl  = map[int][]byte{} // shared position -> its replacing entry (with its name)
		reuse    = make([]int, len(changes))
		changed  []string
		modified bool
	)
	for i := range reuse {
		reuse[i] = -1
	}
	// take looks for a change to the entry named name, whose current
	// content is cur (with its flags), at shared position pos (-1 for an
	// added entry), and reports whether the entry goes; errWholeIndex for
	// what patchSplit leaves to the whole index.
	ci := 0 // the shared entries come in order: the first change not before them
	take := func(name []byte, cur []byte, flags, xflags uint16, pos int) (bool, error) {
		for _, c := range changes {
			if c.conflictsWith(name) {
				return false, errWholeIndex
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
			return false, nil
		}
		if xflags&(xflagSkipWorktree|xflagIntentToAdd) != 0 {
			return false, errWholeIndex
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
		return true, nil
	}

	// The shared entries, in order.
	sharedPos := map[int][]byte{} // the shared entries a change drops, by position
	err := v.each(func(i int, name, shared, cur []byte, flags, xflags uint16) error {
		drop, err := take(name, cur, flags, xflags, i)
		switch {
		case err != nil:
			return err
		case drop:
			deleted[i], replaced[i] = true, false
			sharedPos[i] = shared
		case racilyClean(cur, indexMtime):
			replaced[i], newRepl[i] = true, smudged(cur)
		case replaced[i]:
			newRepl[i] = cur
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	// The added entries.
	var adds [][]byte
	for _, a := range v.adds {
		e := v.split.data[a.off : a.off+a.size]
		drop, err := take(a.name, e, a.flags, a.xflags, -1)
		switch {
		case err != nil:
			return nil, err
		case drop:
		case racilyClean(e, indexMtime):
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
		return nil, nil
	}
	slices.SortStableFunc(adds, compareEntries)

	nRepl, nDel := 0, 0
	for i := range n {
		if replaced[i] {
			nRepl++
		}
		if deleted[i] {
			nDel++
		}
	}
	if (nRepl+nDel+len(adds))*100 > n*maxSplitChange {
		return nil, errWholeIndex
	}

	// Extensions: as the patcher treats them.
	var exts [][]byte
	for _, x := range v.split.exts {
		keep, ok := patchExtension(x, changed)
		if !ok {
			return nil, errWholeIndex
		}
		if keep != nil {
			exts = append(exts, keep)
		}
	}

	link := append(slices.Clone(v.split.link[:hashLen]), encodeEWAH(deleted)...)
	link = append(link, encodeEWAH(replaced)...)
	out := make([]byte, 0, 4096)
	out = append(out, indexSignature...)
	out = be.AppendUint32(out, v.split.version)
	out = be.AppendUint32(out, uint32(nRepl+len(adds)))
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
	out = be.AppendUint32(out, uint32(len(link)))
	out = append(out, link...)
	for _, x := range exts {
		out = append(out, x...)
	}
	now := time.Now()
	_ = os.Chtimes(v.sharedPath, now, now) // as git does: a shared index in use does not expire
	return wholeImage(appendChecksum(out)), nil
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
