package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// A version 2 pack index is a header, a fanout table of 256 counts, the
// sorted object names, their CRCs, their 4-byte offsets, the 8-byte offsets
// of the objects past 2 GiB, and two checksums. Decoding it whole (go-git's
// idxfile) reads and hashes every byte: 7 ms for the 20,000 objects of a
// repository of 10,000 issues, which a call that reads one object (a
// claim's commit, a config at HEAD) spends for nothing. peekIndex answers
// such lookups from the file itself, two reads each, as git does; an
// objectFiles that keeps looking decodes the index after lazyLookups.

// lazyLookups is how many objects one reader looks up in a pack through
// peekIndex before it decodes the index whole, which is then cheaper.
const lazyLookups = 32

const (
	idxHeaderLen = 8
	idxFanoutLen = 256 * 4
	idxTrailer   = 2 * hashLen
)

var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// peekIndex looks objects up in a version 2 pack index without reading
// the whole file: the fanout table is read when it opens, then each lookup
// reads the names of one first byte and the object's offset.
type peekIndex struct {
	r      io.ReaderAt
	f      *os.File // the file r reads, closed by close
	fanout [256]uint32
	count  int64
}

// openPeekIndex opens the index at path: nil when it is missing, not
// version 2, or shorter than its fanout table says it must be (git skips
// such a pack; its checksum is checked when the index is decoded whole).
func openPeekIndex(path string) *peekIndex {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil
	}
	p := newPeekIndex(f, st.Size())
	if p == nil {
		f.Close()
		return nil
	}
	p.f = f
	return p
}

// newPeekIndex reads the header and fanout table of the index of size
// bytes that r reads; nil when they are not those of a version 2 index of
// that size.
func newPeekIndex(r io.ReaderAt, size int64) *peekIndex {
	var head [idxHeaderLen + idxFanoutLen]byte
	if size < int64(len(head)) {
		return nil
	}
	if _, err := r.ReadAt(head[:], 0); err != nil || !bytes.Equal(head[:idxHeaderLen], idxMagic) {
		return nil
	}
	p := &peekIndex{r: r}
	prev := uint32(0)
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(head[idxHeaderLen+4*i:])
		if p.fanout[i] < prev {
			return nil
		}
		prev = p.fanout[i]
	}
	p.count = int64(p.fanout[255])
	if size < idxHeaderLen+idxFanoutLen+p.count*(hashLen+4+4)+idxTrailer {
		return nil
	}
	return p
}

func (p *peekIndex) close() {
	if p != nil && p.f != nil {
		p.f.Close()
		p.f = nil
	}
}

// errPeekDamaged reports an index whose entries contradict its layout.
var errPeekDamaged = errors.New("the pack index is damaged")

// findOffset returns the offset of h in the pack, plumbing.ErrObjectNotFound
// when the pack does not hold it.
func (p *peekIndex) findOffset(h plumbing.Hash) (int64, error) {
	lo := int64(0)
	if h[0] > 0 {
		lo = int64(p.fanout[h[0]-1])
	}
	hi := int64(p.fanout[h[0]])
	if hi <= lo {
		return 0, plumbing.ErrObjectNotFound
	}
	names := make([]byte, (hi-lo)*hashLen)
	if _, err := p.r.ReadAt(names, idxHeaderLen+idxFanoutLen+lo*hashLen); err != nil {
		return 0, err
	}
	i, j := int64(0), hi-lo
	for i < j {
		m := int64(uint64(i+j) >> 1)
		if bytes.Compare(names[m*hashLen:(m+1)*hashLen], h[:]) < 0 {
			i = m + 1
		} else {
			j = m
		}
	}
	if i == hi-lo || !bytes.Equal(names[i*hashLen:(i+1)*hashLen], h[:]) {
		return 0, plumbing.ErrObjectNotFound
	}
	offsets := idxHeaderLen + idxFanoutLen + p.count*(hashLen+4)
	var b [8]byte
	if _, err := p.r.ReadAt(b[:4], offsets+(lo+i)*4); err != nil {
		return 0, err
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), nil
	}
	large := offsets + p.count*4 + int64(off&0x7fffffff)*8
	if _, err := p.r.ReadAt(b[:], large); err != nil {
		return 0, errPeekDamaged
	}
	o := binary.BigEndian.Uint64(b[:])
	if o > 1<<62 {
		return 0, errPeekDamaged
	}
	return int64(o), nil
}
