package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// A split index (core.splitIndex, git update-index --split-index) keeps
// most entries in a shared index file, $GIT_DIR/sharedindex.<name>, and
// writes to .git/index only what changed since: its "link" extension names
// the shared file and carries two EWAH bitmaps over the shared entries,
// those deleted and those replaced. The replacing entries come first in
// .git/index, in the order of their bits and without names (the shared
// entry's name stands); the entries after them are added.
//
// td reads such an index by expanding it into the whole index it stands
// for (expandSplitIndex), so that every reader of the index sees every
// entry. It stages into it as git does, writing a split index of the same
// shared one (patchSplit), or the whole index when too much changed; git
// reads either form. Before this, td read only the entries of .git/index
// in a split repository, and its pre-commit check took every file of the
// shared index for deleted.

// errSplitIndex wraps what keeps td from reading a split index.
var errSplitIndex = errors.New("the split index cannot be read")

// errLinkedIndex is what the patcher returns for an index with a link
// extension: a split index, for patchedIndex to stage into as one.
var errLinkedIndex = errors.New("the index is split")

// expandSplitIndex returns the index data stands for: data itself when it
// has no link extension, else the whole index of the shared one (read from
// gitDir) and data (splitView.expand). Finding the link walks the entries
// without keeping them.
func expandSplitIndex(gitDir string, data []byte) ([]byte, error) {
	if data == nil || !hasLink(data) {
		return data, nil // not split, or not td's to judge here: each reader refuses what it cannot read
	}
	v, err := openSplit(gitDir, data)
	if err != nil {
		return nil, err
	}
	defer v.close()
	return v.expand()
}

// splitView is a split index with what it links to: the shared index,
// mapped, and the two bitmaps over its entries.
type splitView struct {
	split      *scannedIndex
	sharedPath string
	shared     []byte
	unmap      func()
	version    uint32 // the shared index's
	deleted    []bool
	replaced   []bool
	repl, adds []scannedEntry // the split index's replacing and added entries
}

// openSplit reads what the split index raw links to. Its checksum is
// verified, and the shared file must end with the checksum its name
// promises. The caller closes the view.
func openSplit(gitDir string, raw []byte) (_ *splitView, err error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errSplitIndex, fmt.Sprintf(format, args...))
	}
	split, err := scanIndex(raw)
	if err != nil {
		return nil, fail(".git/index: %v", err)
	}
	if !checksumOK(raw) {
		return nil, fail(".git/index does not match its checksum")
	}
	link := split.link
	if len(link) < hashLen {
		return nil, fail("its link extension is %d bytes long", len(link))
	}
	v := &splitView{split: split, sharedPath: filepath.Join(gitDir, "sharedindex."+hex.EncodeToString(link[:hashLen]))}
	shared, _, unmap, err := mapIndexFile(v.sharedPath)
	if err == nil && shared == nil {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, fail("read the shared index: %v", err)
	}
	v.shared, v.unmap = shared, unmap
	defer func() {
		if err != nil {
			v.close()
		}
	}()
	be := binary.BigEndian
	if len(shared) < indexHeaderLen+hashLen || string(shared[:4]) != indexSignature || !bytes.Equal(shared[len(shared)-hashLen:], link[:hashLen]) {
		return nil, fail("%s does not end with the checksum its name promises", v.sharedPath)
	}
	if v.version = be.Uint32(shared[4:]); v.version != 2 && v.version != 3 {
		return nil, fail("%s: index version %d", v.sharedPath, v.version)
	}
	n := int(be.Uint32(shared[8:]))
	if n > len(shared)/entryFixedLen {
		return nil, fail("%s: %v", v.sharedPath, errIndexShort)
	}
	v.deleted, v.replaced = make([]bool, n), make([]bool, n)
	if rest := link[hashLen:]; len(rest) > 0 {
		used, err := readEWAH(rest, v.deleted)
		if err != nil {
			return nil, fail("the delete bitmap: %v", err)
		}
		if _, err := readEWAH(rest[used:], v.replaced); err != nil {
			return nil, fail("the replace bitmap: %v", err)
		}
	}
	nRepl := 0
	for i, r := range v.replaced {
		if r && v.deleted[i] {
			return nil, fail("shared entry %d is both deleted and replaced", i)
		}
		if r {
			nRepl++
		}
	}
	if nRepl > len(split.entries) {
		return nil, fail("it replaces more entries than it holds")
	}
	v.repl, v.adds = split.entries[:nRepl], split.entries[nRepl:]
	for _, e := range v.repl {
		if len(e.name) != 0 {
			return nil, fail("a replacing entry has a name")
		}
	}
	for _, e := range v.adds {
		if len(e.name) == 0 {
			return nil, fail("an added entry has no name")
		}
	}
	return v, nil
}

func (v *splitView) close() { v.unmap() }

// each walks the shared entries that are not deleted, in order, as the
// index holds them: cur is the shared entry, or the entry replacing it
// with the shared name; shared is the shared entry as its file has it.
func (v *splitView) each(fn func(i int, name, shared, cur []byte, flags, xflags uint16) error) error {
	body := len(v.shared) - hashLen
	off, k := indexHeaderLen, 0
	for i := range v.deleted {
		rec, err := readIndexRecord(v.shared, off, body, v.version)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errSplitIndex, v.sharedPath, err)
		}
		entry := v.shared[off : off+rec.size]
		off += rec.size
		if v.deleted[i] {
			continue
		}
		cur, flags, xflags := entry, rec.flags, rec.xflags
		if v.replaced[i] {
			r := v.repl[k]
			k++
			cur = encodeEntry(v.split.data[r.off:r.off+entryFixedLen], r.flags, r.xflags, rec.name)
			flags, xflags = r.flags, r.xflags
		}
		if err := fn(i, rec.name, entry, cur, flags, xflags); err != nil {
			return err
		}
	}
	return nil
}

// expand returns the whole index the view stands for: the shared entries
// less the deleted, the replaced ones as the split index has them, the
// added ones merged in order, and the split index's other extensions, with
// a zero checksum (the bytes are not a file; git's readers skip the check
// when it is zero).
func (v *splitView) expand() ([]byte, error) {
	var entries [][]byte
	if err := v.each(func(_ int, _, _, cur []byte, _, _ uint16) error {
		entries = append(entries, cur)
		return nil
	}); err != nil {
		return nil, err
	}
	adds := make([][]byte, len(v.adds))
	for i, r := range v.adds {
		adds[i] = v.split.data[r.off : r.off+r.size]
	}
	slices.SortStableFunc(adds, compareEntries)
	merged := make([][]byte, 0, len(entries)+len(adds))
	size := indexHeaderLen + hashLen
	for i, j := 0, 0; i < len(entries) || j < len(adds); {
		var e []byte
		switch {
		case j == len(adds) || i < len(entries) && compareEntries(entries[i], adds[j]) < 0:
			e = entries[i]
			i++
		case i == len(entries) || compareEntries(entries[i], adds[j]) > 0:
			e = adds[j]
			j++
		default:
			return nil, fmt.Errorf("%w: an added entry is already in the shared index", errSplitIndex)
		}
		merged = append(merged, e)
		size += len(e)
	}
	for _, x := range v.split.exts {
		size += len(x)
	}
	be := binary.BigEndian
	out := make([]byte, 0, size)
	out = append(out, indexSignature...)
	out = be.AppendUint32(out, max(v.split.version, v.version))
	out = be.AppendUint32(out, uint32(len(merged)))
	for _, e := range merged {
		out = append(out, e...)
	}
	for _, x := range v.split.exts {
		out = append(out, x...)
	}
	return append(out, make([]byte, hashLen)...), nil
}

// scannedIndex is a version 2 or 3 index's layout: where its entries are,
// its extensions other than link (whole, signature and size included), and
// the content of link.
type scannedIndex struct {
	data    []byte
	version uint32
	entries []scannedEntry
	exts    [][]byte
	link    []byte
}

type scannedEntry struct {
	off, size     int
	flags, xflags uint16
	name          []byte
}

// scanIndex lays out the index in data.
func scanIndex(data []byte) (*scannedIndex, error) {
	ix := &scannedIndex{data: data}
	err := walkIndex(data, func(off int, rec indexRecord) {
		ix.entries = append(ix.entries, scannedEntry{off: off, size: rec.size, flags: rec.flags, xflags: rec.xflags, name: rec.name})
	}, func(sig string, ext, whole []byte) {
		if sig == "link" {
			ix.link = ext
		} else {
			ix.exts = append(ix.exts, whole)
		}
	})
	if err != nil {
		return nil, err
	}
	ix.version = binary.BigEndian.Uint32(data[4:])
	return ix, nil
}

// hasLink reports whether the version 2 or 3 index in data has a link
// extension: whether it is split.
func hasLink(data []byte) bool {
	found := false
	err := walkIndex(data, func(int, indexRecord) {}, func(sig string, _, _ []byte) {
		found = found || sig == "link"
	})
	return err == nil && found
}

// walkIndex calls entry for each entry of the version 2 or 3 index in
// data and ext for each extension (its signature, content, and the whole
// of it), without keeping them.
func walkIndex(data []byte, entry func(off int, rec indexRecord), ext func(sig string, content, whole []byte)) error {
	be := binary.BigEndian
	if len(data) < indexHeaderLen+hashLen || string(data[:4]) != indexSignature {
		return errIndexMalformed
	}
	version := be.Uint32(data[4:])
	if version != 2 && version != 3 {
		return fmt.Errorf("index version %d", version)
	}
	body := len(data) - hashLen
	count := be.Uint32(data[8:])
	if int64(count) > int64(body/entryFixedLen) {
		return errIndexShort
	}
	off := indexHeaderLen
	for range count {
		rec, err := readIndexRecord(data, off, body, version)
		if err != nil {
			return err
		}
		entry(off, rec)
		off += rec.size
	}
	for off < body {
		if off+8 > body {
			return errIndexShort
		}
		n := int(be.Uint32(data[off+4:]))
		if n < 0 || n > body-off-8 {
			return errIndexShort
		}
		ext(string(data[off:off+4]), data[off+8:off+8+n], data[off:off+8+n])
		off += 8 + n
	}
	return nil
}

// encodeEntry encodes an entry from the fixed part of another (stat data,
// mode, object name; its flags are given apart) and a name.
func encodeEntry(fixed []byte, flags, xflags uint16, name []byte) []byte {
	be := binary.BigEndian
	head := entryFixedLen
	if flags&flagExtended != 0 {
		head += 2
	}
	out := make([]byte, entryLen(head, len(name)))
	copy(out, fixed[:entryFlagsOff])
	be.PutUint16(out[entryFlagsOff:], flags&^flagNameMask|uint16(min(len(name), flagNameMask)))
	if flags&flagExtended != 0 {
		be.PutUint16(out[entryFixedLen:], xflags)
	}
	copy(out[head:], name)
	return out
}

// readEWAH reads one of git's EWAH-compressed bitmaps from the start of
// data into set, whose length bounds the bits it may hold, and returns how
// many bytes it took. The format: the bitmap's size in bits, the number of
// 64-bit words, the words, and the position of the last marker word, all
// big-endian. A marker word holds, from its low bit up, the bit a run of
// whole words repeats, the run's length in words (32 bits) and the number
// of literal words that follow it (31 bits); literal bits count from each
// word's low bit.
func readEWAH(data []byte, set []bool) (int, error) {
	be := binary.BigEndian
	if len(data) < 8 {
		return 0, errIndexShort
	}
	words := int64(be.Uint32(data[4:]))
	if words > int64(len(data)-12)/8 {
		return 0, errIndexShort
	}
	end := 8 + 8*int(words)
	limit := int64(len(set))
	pos := int64(0) // the bit the next word starts at
	mark := func(bit int64) error {
		if bit >= limit {
			return fmt.Errorf("bit %d is past the %d entries of the shared index", bit, limit)
		}
		set[bit] = true
		return nil
	}
	for w := 0; w < int(words); {
		rlw := be.Uint64(data[8+8*w:])
		w++
		run := int64(rlw>>1) & 0xffffffff
		literals := int(rlw >> 33)
		if rlw&1 != 0 {
			for bit := pos; bit < pos+64*run; bit++ {
				if err := mark(bit); err != nil {
					return 0, err
				}
			}
		}
		if pos += 64 * run; pos > limit+64 && literals > 0 {
			return 0, fmt.Errorf("a run reaches past the %d entries of the shared index", limit)
		}
		if literals > int(words)-w {
			return 0, errIndexShort
		}
		for range literals {
			word := be.Uint64(data[8+8*w:])
			w++
			for b := int64(0); word != 0; b, word = b+1, word>>1 {
				if word&1 != 0 {
					if err := mark(pos + b); err != nil {
						return 0, err
					}
				}
			}
			pos += 64
		}
	}
	return end + 4, nil
}

// encodeEWAH encodes set as git's EWAH bitmap (see readEWAH): a marker
// word for each run of empty words and the literal words after it. git
// reads at least one marker word, even for an empty set.
func encodeEWAH(set []bool) []byte {
	words := make([]uint64, (len(set)+63)/64)
	for i, b := range set {
		if b {
			words[i/64] |= 1 << (i % 64)
		}
	}
	var buf []uint64
	last := 0
	for i := 0; i < len(words); {
		run := 0
		for i < len(words) && words[i] == 0 {
			run++
			i++
		}
		lit := 0
		for i+lit < len(words) && words[i+lit] != 0 {
			lit++
		}
		last = len(buf)
		buf = append(buf, uint64(lit)<<33|uint64(run)<<1)
		buf = append(buf, words[i:i+lit]...)
		i += lit
	}
	if len(buf) == 0 {
		buf = append(buf, 0)
	}
	be := binary.BigEndian
	out := be.AppendUint32(nil, uint32(len(set)))
	out = be.AppendUint32(out, uint32(len(buf)))
	for _, w := range buf {
		out = be.AppendUint64(out, w)
	}
	return be.AppendUint32(out, uint32(last))
}
