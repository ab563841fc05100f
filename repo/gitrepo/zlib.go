package gitrepo

import (
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"sync"
)

// A zlib writer costs about 650 KB of zeroed memory to make (the deflate
// compressor's hash tables live inside it), far more than compressing the
// few kilobytes of an issue file. td writes several objects per command, so
// it makes each kind of stream without that cost: trees and commits as
// stored (uncompressed) zlib, encoded here directly, and blobs through a
// writer the Repo keeps and resets.

// storeBelow is the size under which a blob is stored uncompressed: a
// loose object that small fills one 4 KB file-system block compressed or
// not, so compressing it saves no space, and git gc compresses it when it
// packs it.
const storeBelow = 3 << 10

// maxStoredBlock is the most a deflate stored block holds.
const maxStoredBlock = 65535

// writeStoredZlib writes parts, in order, as one zlib stream of stored
// deflate blocks (RFC 1950 and 1951), with one write: the stream a zlib
// writer at zlib.NoCompression makes, except that the last data block is
// marked final where that writer adds an empty final block.
func writeStoredZlib(w io.Writer, parts ...[]byte) error {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	// The header: deflate with a 32 KB window, no dictionary, the lowest
	// compression level flag, and a check value making it a multiple of 31.
	out := make([]byte, 0, 2+total+5*(total/maxStoredBlock+1)+4)
	out = append(out, 0x78, 0x01)
	sum := adler32.New()
	block := make([]byte, 0, min(total, maxStoredBlock))
	flush := func(final bool) {
		var head byte
		if final {
			head = 1
		}
		n := uint16(len(block))
		out = append(out, head, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
		out = append(out, block...)
		block = block[:0]
	}
	for _, p := range parts {
		sum.Write(p)
		for len(p) > 0 {
			room := maxStoredBlock - len(block)
			if room == 0 {
				flush(false)
				continue
			}
			k := min(room, len(p))
			block = append(block, p[:k]...)
			p = p[k:]
		}
	}
	flush(true)
	out = binary.BigEndian.AppendUint32(out, sum.Sum32())
	_, err := w.Write(out)
	return err
}

// zlibWriters keeps zlib writers at level blobLevel for reuse. A Repo
// lives for one command, so the writer made for its first blob serves the
// rest.
type zlibWriters struct {
	mu   sync.Mutex
	free []*zlib.Writer
}

// blobLevel is the zlib level of the blobs td writes.
const blobLevel = zlib.BestSpeed

// get returns a writer at blobLevel writing to w.
func (p *zlibWriters) get(w io.Writer) (*zlib.Writer, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		zw := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		zw.Reset(w)
		return zw, nil
	}
	p.mu.Unlock()
	return zlib.NewWriterLevel(w, blobLevel)
}

// put returns a closed writer to the pool.
func (p *zlibWriters) put(zw *zlib.Writer) {
	zw.Reset(io.Discard)
	p.mu.Lock()
	p.free = append(p.free, zw)
	p.mu.Unlock()
}
