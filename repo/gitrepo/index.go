package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// The on-disk index format (git's Documentation/gitformat-index.txt), as far
// as the patcher needs it. An entry is 40 bytes of stat data, a 20-byte object
// name, 16 bits of flags, in version 3 optionally 16 bits of extended flags,
// then the path and 1 to 8 NUL bytes padding the entry to a multiple of 8.
const (
	indexSignature  = "DIRC"
	indexHeaderLen  = 12
	hashLen         = 20
	entryFixedLen   = 62 // stat data, object name and flags
	entrySizeOffset = 36 // offset of the file size inside an entry
	entryMtimeOff   = 8  // offset of the mtime seconds inside an entry
	entryModeOffset = 24
	entryHashOffset = 40
	entryFlagsOff   = 60

	flagExtended  = 0x4000
	flagStageMask = 0x3000
	flagNameMask  = 0x0fff

	xflagSkipWorktree = 0x4000
	xflagIntentToAdd  = 0x2000

	modeTypeMask = 0o170000
	modeRegular  = 0o100000
	modeSymlink  = 0o120000
	modeGitlink  = 0o160000
	modeFile     = 0o100644
	modeExec     = 0o100755
)

// errNeedsCodec reports an index the byte-level patcher does not handle; the
// caller falls back to go-git's index codec, which either handles it or
// reports what is wrong with it.
var errNeedsCodec = errors.New("index needs the full codec")

// change is the new state of one path: a blob to record, or a removal.
type change struct {
	path   string // slash-separated, relative to the work tree root
	remove bool
	mode   uint32 // mode of the file on disk: modeFile, modeExec or modeSymlink
	hash   [hashLen]byte
	stat   statData

	// Filled while patching: the mode and object name of the stage-0 entry
	// the change replaces, and how many entries it replaces.
	oldMode  uint32
	oldHash  [hashLen]byte
	replaced int
	oldStage int
}

// indexMode is the mode the entry for c gets: git keeps the recorded mode of
// a regular file when core.fileMode is false, and records new files as
// non-executable then.
func (c *change) indexMode(trustExecBit func() bool) uint32 {
	if c.mode == modeSymlink {
		return c.mode
	}
	if c.oldMode&modeTypeMask == modeRegular && c.oldMode != c.mode && !trustExecBit() {
		return c.oldMode
	}
	if c.oldMode == 0 && c.mode == modeExec && !trustExecBit() {
		return modeFile
	}
	return c.mode
}

// noteReplaced records an entry the change replaces. The stage-0 entry, or
// else "ours" (stage 2) of a conflict, provides the old mode.
func (c *change) noteReplaced(mode uint32, hash []byte, stage int) {
	c.replaced++
	if c.oldMode == 0 || stage == 0 || stage == 2 && c.oldStage != 0 {
		c.oldMode, c.oldStage = mode, stage
		copy(c.oldHash[:], hash)
	}
}

// unchanged reports whether writing c leaves the index content as it was:
// the same single stage-0 entry with the same object and mode.
func (c *change) unchanged(mode uint32) bool {
	return !c.remove && c.replaced == 1 && c.oldStage == 0 && c.oldMode == mode && c.oldHash == c.hash
}

// conflictsWith reports whether an index entry named name must go when c is
// applied: it is below c's path, or, for an added file, it is a file where c
// needs a directory.
func (c *change) conflictsWith(name []byte) bool {
	p := c.path
	if len(name) > len(p) && name[len(p)] == '/' && string(name[:len(p)]) == p {
		return true
	}
	return !c.remove && len(p) > len(name) && p[len(name)] == '/' && p[:len(name)] == string(name)
}

// appendEntry encodes the index entry for c with the given mode.
func appendEntry(out []byte, c *change, mode uint32) []byte {
	be := binary.BigEndian
	s := &c.stat
	for _, v := range [...]uint32{s.ctimeSec, s.ctimeNsec, s.mtimeSec, s.mtimeNsec, s.dev, s.ino, mode, s.uid, s.gid, s.size} {
		out = be.AppendUint32(out, v)
	}
	out = append(out, c.hash[:]...)
	out = be.AppendUint16(out, uint16(min(len(c.path), flagNameMask)))
	out = append(out, c.path...)
	pad := entryLen(entryFixedLen, len(c.path)) - entryFixedLen - len(c.path)
	for range pad {
		out = append(out, 0)
	}
	return out
}

// indexRecord is the variable-length part of one index entry as stored:
// its flags, extended flags (version 3), path and size on disk.
type indexRecord struct {
	flags, xflags uint16
	name          []byte
	size          int
}

// Problems in an index entry's layout.
var (
	errIndexShort     = errors.New("the index is cut short")
	errIndexMalformed = errors.New("the index has a malformed entry")
)

// readIndexRecord reads the entry at off of an index of the given version
// whose entries and extensions end at body.
func readIndexRecord(data []byte, off, body int, version uint32) (indexRecord, error) {
	be := binary.BigEndian
	if off+entryFixedLen > body {
		return indexRecord{}, errIndexShort
	}
	rec := indexRecord{flags: be.Uint16(data[off+entryFlagsOff:])}
	fixed := entryFixedLen
	if rec.flags&flagExtended != 0 {
		if version < 3 || off+entryFixedLen+2 > body {
			return indexRecord{}, errIndexMalformed
		}
		rec.xflags = be.Uint16(data[off+entryFixedLen:])
		fixed += 2
	}
	nameStart := off + fixed
	nameLen := int(rec.flags & flagNameMask)
	if nameLen == flagNameMask {
		n := bytes.IndexByte(data[nameStart:body], 0)
		if n < 0 {
			return indexRecord{}, errIndexMalformed
		}
		nameLen = n
	}
	rec.size = entryLen(fixed, nameLen)
	if nameStart+nameLen > body || off+rec.size > body {
		return indexRecord{}, errIndexShort
	}
	rec.name = data[nameStart : nameStart+nameLen : nameStart+nameLen]
	return rec, nil
}

// entryLen is the padded on-disk length of a version 2 or 3 entry whose fixed
// part is fixed bytes long and whose path is nameLen bytes long.
func entryLen(fixed, nameLen int) int { return (fixed + nameLen + 8) &^ 7 }

// patchIndex applies changes, sorted by path, to the version 2 or 3 index in
// data without decoding it into structures, and returns the new index, or nil
// when nothing changed. data nil means there is no index yet. indexMtime is
// the index file's modification time in seconds: entries modified in the same
// second or later are racily clean, and their size is zeroed, as git does, so
// that git re-checks their content once the rewritten index is newer than
// them. It returns errNeedsCodec for anything it does not handle.
func patchIndex(data []byte, indexMtime uint32, changes []*change, trustExecBit func() bool) (*indexImage, error) {
	if data == nil {
		return wholeImage(newIndex(changes, trustExecBit)), nil
	}
	be := binary.BigEndian
	if len(data) < indexHeaderLen+hashLen || string(data[:4]) != indexSignature {
		return nil, errNeedsCodec
	}
	version := be.Uint32(data[4:])
	if version != 2 && version != 3 {
		return nil, errNeedsCodec
	}
	body := len(data) - hashLen
	// The old checksum is verified while the new index is built: each is a
	// pass over the whole index, and there are cores for both.
	verified := make(chan bool, 1)
	go func() { verified <- checksumOK(data) }()
	out, err := patchEntries(data, body, version, changes, trustExecBit, indexMtime)
	if ok := <-verified; !ok && !errors.Is(err, errLinkedIndex) {
		return nil, errNeedsCodec // a split index's own reading says what is wrong
	}
	return out, err
}

// patchEntries is patchIndex once the header is known good: it builds the
// new index from data's entries and extensions, which end at body.
func patchEntries(data []byte, body int, version uint32, changes []*change, trustExecBit func() bool, indexMtime uint32) (*indexImage, error) {
	be := binary.BigEndian
	count := be.Uint32(data[8:])

	im := &indexImage{}
	header := slices.Clone(data[:indexHeaderLen])
	im.add(header)
	var (
		kept     uint32
		modified bool
		ci       int      // next change to emit
		changed  []string // paths whose trees are no longer valid
		runStart = indexHeaderLen
		off      = indexHeaderLen
	)
	flush := func(to int) {
		im.add(data[runStart:to])
		runStart = to
	}
	emit := func(c *change) {
		if c.remove {
			return
		}
		mode := c.indexMode(trustExecBit)
		im.add(appendEntry(nil, c, mode))
		kept++
		modified = true
		if !c.unchanged(mode) {
			changed = append(changed, c.path)
		}
	}

	for range count {
		rec, err := readIndexRecord(data, off, body, version)
		if err != nil {
			return nil, errNeedsCodec
		}
		flags, xflags, name, size := rec.flags, rec.xflags, rec.name, rec.size

		for ci < len(changes) && changes[ci].path < string(name) {
			flush(off)
			emit(changes[ci])
			ci++
		}
		drop := false
		if ci < len(changes) && changes[ci].path == string(name) {
			if xflags&(xflagSkipWorktree|xflagIntentToAdd) != 0 {
				return nil, errNeedsCodec
			}
			stage := int(flags&flagStageMask) >> 12
			c := changes[ci]
			c.noteReplaced(be.Uint32(data[off+entryModeOffset:]), data[off+entryHashOffset:off+entryHashOffset+hashLen], stage)
			if c.remove {
				changed = append(changed, c.path)
			}
			drop = true
		} else {
			for _, c := range changes {
				if c.conflictsWith(name) {
					changed = append(changed, string(name))
					drop = true
					break
				}
			}
		}
		if drop {
			flush(off)
			runStart = off + size
			modified = true
			off += size
			continue
		}
		kept++
		if e := data[off : off+size]; racilyClean(e, indexMtime) {
			flush(off)
			im.add(smudged(e))
			runStart = off + size
		}
		off += size
	}
	flush(off)
	for ; ci < len(changes); ci++ {
		emit(changes[ci])
	}
	if !modified {
		// Nothing this index holds changes, but a split index holds only
		// part of the entries: the shared ones may.
		if hasLink(data) {
			return nil, errLinkedIndex
		}
		return nil, nil
	}

	// Extensions: as patchExtension says; a link extension is a split
	// index, which patchedIndex stages into as one.
	for p := off; p < body; {
		if p+8 > body {
			return nil, errNeedsCodec
		}
		sig := data[p : p+4]
		n := int(be.Uint32(data[p+4:]))
		if n < 0 || n > body-p-8 {
			return nil, errNeedsCodec
		}
		if string(sig) == "link" {
			return nil, errLinkedIndex
		}
		keep, ok := patchExtension(data[p:p+8+n], changed)
		if !ok {
			return nil, errNeedsCodec
		}
		im.add(keep)
		p += 8 + n
	}
	be.PutUint32(header[8:], kept)
	h := sha1.New()
	for _, part := range im.parts {
		h.Write(part)
	}
	im.add(h.Sum(nil))
	return im, nil
}

// racilyClean reports whether the encoded entry e was modified in the
// second the index was written (indexMtime, 0 for unknown) or later: its
// stat data proves nothing then, and a rewritten index smudges it
// (smudged), as git does, so that git checks its content once the new
// index is newer than the file. Gitlinks and entries already smudged are
// left alone.
func racilyClean(e []byte, indexMtime uint32) bool {
	be := binary.BigEndian
	return indexMtime != 0 && be.Uint32(e[entryModeOffset:])&modeTypeMask != modeGitlink &&
		be.Uint32(e[entryMtimeOff:]) >= indexMtime && be.Uint32(e[entrySizeOffset:]) != 0
}

// smudged is a copy of the encoded entry e with its size zeroed.
func smudged(e []byte) []byte {
	e = slices.Clone(e)
	binary.BigEndian.PutUint32(e[entrySizeOffset:], 0)
	return e
}

// patchExtension says what an index rewritten for the changed paths keeps
// of the extension whole (signature, size and content): TREE with those
// paths' trees invalidated (nil when nothing of it stays valid), REUC as
// it is, and none of the optional others, whose content depends on entry
// positions or the work tree. ok is false for a mandatory extension (one
// whose signature does not start with a capital), which td does not
// update.
func patchExtension(whole []byte, changed []string) (keep []byte, ok bool) {
	switch sig := string(whole[:4]); {
	case sig[0] < 'A' || sig[0] > 'Z':
		return nil, false
	case sig == "TREE":
		if tree := invalidateTree(whole[8:], changed); tree != nil {
			keep = append([]byte("TREE"), binary.BigEndian.AppendUint32(nil, uint32(len(tree)))...)
			return append(keep, tree...), true
		}
	case sig == "REUC":
		return whole, true
	}
	return nil, true
}

// indexImage is a new index as the parts it is written from, in order:
// runs of the old index's bytes (mapped, not copied) between small buffers
// holding what changed, the checksum last. At 100,000 issues the index is
// some 20 MB, and copying it into fresh memory before writing it cost half
// of a one-issue change in page faults.
type indexImage struct {
	parts [][]byte
	// release unmaps the old index the parts may point into; nil when
	// there is nothing to unmap. Called once the image is written.
	release func()
}

// wholeImage is an image of one buffer; nil for no index.
func wholeImage(data []byte) *indexImage {
	if data == nil {
		return nil
	}
	return &indexImage{parts: [][]byte{data}}
}

func (im *indexImage) add(b []byte) {
	if len(b) > 0 {
		im.parts = append(im.parts, b)
	}
}

// done releases what the image holds; safe on a nil image and twice.
func (im *indexImage) done() {
	if im != nil && im.release != nil {
		im.release()
		im.release = nil
	}
}

// newIndex builds a version 2 index holding the entries of changes, or nil
// when there is nothing to record.
func newIndex(changes []*change, trustExecBit func() bool) []byte {
	var out []byte
	var n uint32
	for _, c := range changes {
		if c.remove {
			continue
		}
		if out == nil {
			out = append(out, indexSignature...)
			out = binary.BigEndian.AppendUint32(out, 2)
			out = binary.BigEndian.AppendUint32(out, 0)
		}
		out = appendEntry(out, c, c.indexMode(trustExecBit))
		n++
	}
	if out == nil {
		return nil
	}
	binary.BigEndian.PutUint32(out[8:], n)
	return appendChecksum(out)
}

// appendChecksum appends an index's trailing checksum to its content.
func appendChecksum(out []byte) []byte {
	sum := sha1.Sum(out)
	return append(out, sum[:]...)
}

// checksumOK reports whether an index ends with the checksum of what it
// holds, or with zeros (index.skipHash, and td's expanded split indexes).
func checksumOK(data []byte) bool {
	body, trailer := data[:len(data)-hashLen], data[len(data)-hashLen:]
	if isZero(trailer) {
		return true
	}
	sum := sha1.Sum(body)
	return bytes.Equal(sum[:], trailer)
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// treeNode is one directory of the TREE (cache tree) extension.
type treeNode struct {
	name     string
	count    int // index entries covered, -1 when invalid
	hash     []byte
	children []*treeNode
}

// invalidateTree returns the TREE extension data ext with the trees holding
// any of paths marked invalid, as git's cache_tree_invalidate_path does, or
// nil when the extension cannot be parsed (it is then dropped, which is
// always valid).
func invalidateTree(ext []byte, paths []string) []byte {
	if len(paths) == 0 {
		return ext
	}
	root, rest, ok := parseTree(ext, 0)
	if !ok || len(rest) != 0 {
		return nil
	}
	for _, p := range paths {
		root.invalidate(p)
	}
	return root.appendTo(make([]byte, 0, len(ext)))
}

// maxTreeDepth bounds recursion on a malformed extension.
const maxTreeDepth = 4096

func parseTree(b []byte, depth int) (*treeNode, []byte, bool) {
	if depth > maxTreeDepth {
		return nil, nil, false
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, false
	}
	n := &treeNode{name: string(b[:nul])}
	b = b[nul+1:]
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return nil, nil, false
	}
	count, err := strconv.Atoi(string(b[:sp]))
	if err != nil || count < -1 {
		return nil, nil, false
	}
	n.count = count
	b = b[sp+1:]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, nil, false
	}
	subtrees, err := strconv.Atoi(string(b[:nl]))
	if err != nil || subtrees < 0 || subtrees > len(b) {
		return nil, nil, false
	}
	b = b[nl+1:]
	if count >= 0 {
		if len(b) < hashLen {
			return nil, nil, false
		}
		n.hash, b = b[:hashLen], b[hashLen:]
	}
	n.children = make([]*treeNode, 0, subtrees)
	for range subtrees {
		child, rest, ok := parseTree(b, depth+1)
		if !ok {
			return nil, nil, false
		}
		n.children = append(n.children, child)
		b = rest
	}
	return n, b, true
}

// invalidate marks this tree and the trees on the way to path invalid, and
// forgets a subtree named like path's last component, which is a file now.
func (n *treeNode) invalidate(path string) {
	n.count, n.hash = -1, nil
	dir, rest, more := strings.Cut(path, "/")
	i := n.child(dir)
	if i < 0 {
		return
	}
	if !more {
		n.children = append(n.children[:i], n.children[i+1:]...)
		return
	}
	n.children[i].invalidate(rest)
}

func (n *treeNode) child(name string) int {
	for i, c := range n.children {
		if c.name == name {
			return i
		}
	}
	return -1
}

func (n *treeNode) appendTo(out []byte) []byte {
	out = append(out, n.name...)
	out = append(out, 0)
	out = strconv.AppendInt(out, int64(n.count), 10)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(n.children)), 10)
	out = append(out, '\n')
	if n.count >= 0 {
		out = append(out, n.hash...)
	}
	for _, c := range n.children {
		out = c.appendTo(out)
	}
	return out
}
