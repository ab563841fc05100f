package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
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
// entry, and writes a whole index back when it stages: git reads either
// form, and splits the index again at its own next write when the
// repository asks for it. Before this, td read only the entries of
// .git/index in a split repository, and its pre-commit check took every
// file of the shared index for deleted.

// errSplitIndex wraps what keeps td from reading a split index.
var errSplitIndex = errors.New("the split index cannot be read")

// expandSplitIndex returns the index data stands for: data itself when it
// has no link extension, else the merged entries of the shared index
// (read from gitDir) and data, followed by data's other extensions, with a
// zero checksum (the bytes are not a file; git's readers skip the check
// when it is zero). The split index's own checksum is verified, and the
// shared file must end with the checksum its name promises.
func expandSplitIndex(gitDir string, data []byte) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	split, err := scanIndex(data)
	if err != nil || split.link == nil {
		return data, nil // not split, or not td's to judge here: each reader refuses what it cannot read
	}
	return expandScanned(gitDir, data, split)
}

// expandScanned is expandSplitIndex of data, laid out as split.
func expandScanned(gitDir string, data []byte, split *scannedIndex) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errSplitIndex, fmt.Sprintf(format, args...))
	}
	if sum := sha1.Sum(data[:len(data)-hashLen]); !isZero(data[len(data)-hashLen:]) && !bytes.Equal(sum[:], data[len(data)-hashLen:]) {
		return nil, fail(".git/index does not match its checksum")
	}
	link := split.link
	if len(link) < hashLen {
		return nil, fail("its link extension is %d bytes long", len(link))
	}
	name := hex.EncodeToString(link[:hashLen])
	sharedPath := filepath.Join(gitDir, "sharedindex."+name)
	shared, err := os.ReadFile(sharedPath)
	if err != nil {
		return nil, fail("read the shared index: %v", err)
	}
	if len(shared) < indexHeaderLen+hashLen || !bytes.Equal(shared[len(shared)-hashLen:], link[:hashLen]) {
		return nil, fail("%s does not end with the checksum its name promises", sharedPath)
	}
	base, err := scanIndex(shared)
	if err != nil {
		return nil, fail("%s: %v", sharedPath, err)
	}
	if base.link != nil {
		return nil, fail("%s is itself split", sharedPath)
	}
	n := len(base.entries)
	deleted, replaced := make([]bool, n), make([]bool, n)
	if rest := link[hashLen:]; len(rest) > 0 {
		used, err := readEWAH(rest, deleted)
		if err != nil {
			return nil, fail("the delete bitmap: %v", err)
		}
		if _, err := readEWAH(rest[used:], replaced); err != nil {
			return nil, fail("the replace bitmap: %v", err)
		}
	}

	be := binary.BigEndian
	version := max(split.version, base.version)
	var entries [][]byte // the merged entries, each encoded whole
	next := 0            // the next of split's entries to replace a shared one
	for i, e := range base.entries {
		switch {
		case deleted[i] && replaced[i]:
			return nil, fail("shared entry %d is both deleted and replaced", i)
		case deleted[i]:
			continue
		case replaced[i]:
			if next >= len(split.entries) {
				return nil, fail("it replaces more entries than it holds")
			}
			r := split.entries[next]
			next++
			if len(r.name) != 0 {
				return nil, fail("replacing entry %d has a name", next-1)
			}
			entries = append(entries, encodeEntry(split.data[r.off:r.off+entryFixedLen], r.flags, r.xflags, e.name))
		default:
			entries = append(entries, base.data[e.off:e.off+e.size])
		}
	}
	added := split.entries[next:]
	merged := make([][]byte, 0, len(entries)+len(added))
	cmp := compareEntries
	adds := make([][]byte, len(added))
	for i, r := range added {
		if len(r.name) == 0 {
			return nil, fail("an added entry has no name")
		}
		adds[i] = split.data[r.off : r.off+r.size]
	}
	slices.SortStableFunc(adds, cmp)
	i, j := 0, 0
	for i < len(entries) || j < len(adds) {
		switch {
		case j == len(adds) || i < len(entries) && cmp(entries[i], adds[j]) < 0:
			merged = append(merged, entries[i])
			i++
		case i == len(entries) || cmp(entries[i], adds[j]) > 0:
			merged = append(merged, adds[j])
			j++
		default:
			return nil, fail("an added entry is already in the shared index")
		}
	}

	size := indexHeaderLen + hashLen
	for _, e := range merged {
		size += len(e)
	}
	for _, x := range split.exts {
		size += len(x)
	}
	out := make([]byte, 0, size)
	out = append(out, indexSignature...)
	out = be.AppendUint32(out, version)
	out = be.AppendUint32(out, uint32(len(merged)))
	for _, e := range merged {
		out = append(out, e...)
	}
	for _, x := range split.exts {
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
	be := binary.BigEndian
	if len(data) < indexHeaderLen+hashLen || string(data[:4]) != indexSignature {
		return nil, errIndexMalformed
	}
	ix := &scannedIndex{data: data, version: be.Uint32(data[4:])}
	if ix.version != 2 && ix.version != 3 {
		return nil, fmt.Errorf("index version %d", ix.version)
	}
	body := len(data) - hashLen
	count := be.Uint32(data[8:])
	if int64(count) > int64(body/entryFixedLen) {
		return nil, errIndexShort
	}
	ix.entries = make([]scannedEntry, 0, count)
	off := indexHeaderLen
	for range count {
		rec, err := readIndexRecord(data, off, body, ix.version)
		if err != nil {
			return nil, err
		}
		ix.entries = append(ix.entries, scannedEntry{off: off, size: rec.size, flags: rec.flags, xflags: rec.xflags, name: rec.name})
		off += rec.size
	}
	for off < body {
		if off+8 > body {
			return nil, errIndexShort
		}
		n := int(be.Uint32(data[off+4:]))
		if n < 0 || n > body-off-8 {
			return nil, errIndexShort
		}
		if string(data[off:off+4]) == "link" {
			ix.link = data[off+8 : off+8+n]
		} else {
			ix.exts = append(ix.exts, data[off:off+8+n])
		}
		off += 8 + n
	}
	return ix, nil
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

// maxSplitChange is the share of the shared entries (in percent) that may
// be deleted, replaced or added before td writes the whole index instead:
// git's default for splitIndex.maxPercentChange, past which git writes a
// new shared index.
const maxSplitChange = 20

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
