package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// writeIndex writes a version 2 pack index of the objects, with offsets at
// or past 2 GiB in the large offset table, as git does.
func writeIndex(t *testing.T, path string, names []plumbing.Hash, offsets []int64) {
	t.Helper()
	if err := os.WriteFile(path, indexBytes(names, offsets), 0o644); err != nil {
		t.Fatal(err)
	}
}

// indexBytes is the version 2 pack index of the objects.
func indexBytes(names []plumbing.Hash, offsets []int64) []byte {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(names[a][:], names[b][:]) })
	var b bytes.Buffer
	b.Write(idxMagic)
	var fanout [256]uint32
	for _, i := range order {
		for k := int(names[i][0]); k < 256; k++ {
			fanout[k]++
		}
	}
	for _, n := range fanout {
		binary.Write(&b, binary.BigEndian, n)
	}
	for _, i := range order {
		b.Write(names[i][:])
	}
	for _, i := range order {
		binary.Write(&b, binary.BigEndian, uint32(i)) // CRC
	}
	var large []int64
	for _, i := range order {
		if offsets[i] < 1<<31 {
			binary.Write(&b, binary.BigEndian, uint32(offsets[i]))
			continue
		}
		binary.Write(&b, binary.BigEndian, uint32(len(large))|0x80000000)
		large = append(large, offsets[i])
	}
	for _, o := range large {
		binary.Write(&b, binary.BigEndian, uint64(o))
	}
	b.Write(make([]byte, hashLen)) // the pack's checksum
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// TestPeekIndex: every lookup through the file answers as go-git's whole
// decoded index does, large offsets and absent objects included.
func TestPeekIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for _, n := range []int{0, 1, 3, 300, 5000} {
		names := make([]plumbing.Hash, n)
		offsets := make([]int64, n)
		for i := range names {
			for k := range names[i] {
				names[i][k] = byte(rng.UintN(256))
			}
			offsets[i] = int64(12 + i*97)
			if i%7 == 3 {
				offsets[i] = 1<<31 + int64(i)*1<<20 // past 2 GiB
			}
		}
		if n > 2 {
			names[1][0], names[2][0] = 0x00, 0xff // the first and last fanout buckets
		}
		path := filepath.Join(dir, "pack.idx")
		writeIndex(t, path, names, offsets)
		p := openPeekIndex(path)
		if p == nil {
			t.Fatalf("%d objects: the index did not open", n)
		}
		whole := decodePackIndex(path)
		if whole == nil {
			t.Fatalf("%d objects: go-git did not decode the index written", n)
		}
		for i, h := range names {
			got, err := p.findOffset(h)
			want, werr := whole.FindOffset(h)
			if err != nil || werr != nil || got != want || got != offsets[i] {
				t.Fatalf("%d objects: %s at %d (%v), go-git %d (%v), written %d", n, h, got, err, want, werr, offsets[i])
			}
		}
		for range 50 {
			var h plumbing.Hash
			for k := range h {
				h[k] = byte(rng.UintN(256))
			}
			if _, err := p.findOffset(h); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Fatalf("%d objects: an absent object: %v", n, err)
			}
		}
		p.close()
	}
}

// TestPeekIndexRefused: an index that is not version 2, or shorter than
// its fanout table says, does not open, and its pack is skipped.
func TestPeekIndexRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pack.idx")
	names := []plumbing.Hash{{1}, {2}, {3}}
	writeIndex(t, path, names, []int64{12, 40, 80})
	good, _ := os.ReadFile(path)
	for name, data := range map[string][]byte{
		"truncated":    good[:len(good)-30],
		"version 1":    append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 1}, good[8:]...),
		"no header":    good[:100],
		"empty":        nil,
		"fanout falls": append(append(slices.Clone(good[:8+4*10]), 0, 0, 0, 0), good[8+4*11:]...),
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if p := openPeekIndex(path); p != nil {
			p.close()
			t.Errorf("%s: the index opened", name)
		}
	}
	if p := openPeekIndex(filepath.Join(dir, "missing.idx")); p != nil {
		t.Error("a missing index opened")
	}
}

// FuzzPeekIndex: whatever the index holds, peeking at it never panics,
// and where go-git decodes it whole, every object is found at the offset
// go-git finds it at.
func FuzzPeekIndex(f *testing.F) {
	f.Add(indexBytes([]plumbing.Hash{{1, 2}, {0xff}, {0}}, []int64{12, 1<<31 + 5, 40}))
	f.Add(indexBytes(nil, nil))
	f.Add(idxMagic)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newPeekIndex(bytes.NewReader(data), int64(len(data)))
		if p == nil {
			return
		}
		var probe plumbing.Hash
		copy(probe[:], data[min(len(data), idxHeaderLen+idxFanoutLen):])
		p.findOffset(probe)
		whole := idxfile.NewMemoryIndex()
		if idxfile.NewDecoder(bytes.NewReader(data)).Decode(whole) != nil {
			return
		}
		it, err := whole.Entries()
		if err != nil {
			return
		}
		for {
			e, err := it.Next()
			if err != nil {
				break
			}
			got, err := p.findOffset(e.Hash)
			want, werr := whole.FindOffset(e.Hash)
			if werr == nil && (err != nil || got != want) {
				t.Fatalf("%s: peeked %d (%v), go-git %d", e.Hash, got, err, want)
			}
		}
	})
}
