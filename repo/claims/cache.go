package claims

import (
	"bytes"
	"hash/crc32"
	"strconv"
)

// The record cache. A claim is a commit, and a commit never changes: the
// record a commit holds can be kept by its object name and never be
// stale. td ready, list and board read every claim; with 500 claims,
// opening 500 loose objects (and decoding the pack index to learn they
// are not packed) was a fifth of td ready's time. The cache,
// .todos/local/claims.cache, keeps each message read, by commit, as the
// store's other caches are kept (one per work tree):
//
//	td claims cache 1 <CRC-32 of the rest>
//	<object name> <length>
//	<message>
//
// A command that reads a claim the cache lacks reads its commit and
// rewrites the cache atomically, keeping only the claims of the set it
// listed in full (a released claim's record goes with it). Two processes
// writing at once each leave a whole file; a file td cannot read is
// rebuilt from the commits, and so is one whose checksum fails: a cache
// is written without waiting for the disk, and a crash may leave it cut
// short or zeroed, which must not make a claim look absent. Nothing
// outside td reads it; deleting it costs one slower command. It is read
// only when more than a few records are (fewRecords). Since anything run
// in the checkout can write it, it only ever words claims for people:
// td check's rule reads the commits (LoadCommitted), and taking or
// releasing a claim reads its reference's commit directly.
const (
	cacheName   = "claims.cache"
	cacheHeader = "td claims cache 1 "
)

// loadCache returns the cached messages by commit, empty when there is
// no cache or it cannot be read.
func (cs *Set) loadCache() map[string]string {
	out := map[string]string{}
	data, err := cs.store.ReadCache(cacheName)
	if err != nil {
		return out
	}
	rest, ok := bytes.CutPrefix(data, []byte(cacheHeader))
	if !ok {
		return out
	}
	sum, rest, ok := bytes.Cut(rest, []byte("\n"))
	if want, err := strconv.ParseUint(string(sum), 16, 32); !ok || err != nil || uint32(want) != crc32.ChecksumIEEE(rest) {
		return out
	}
	for len(rest) > 0 {
		head, body, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return map[string]string{}
		}
		name, size, ok := bytes.Cut(head, []byte(" "))
		n, err := strconv.Atoi(string(size))
		if !ok || err != nil || n < 0 || n+1 > len(body) || body[n] != '\n' || len(name) != 40 {
			return map[string]string{} // torn or hand-made: read the commits
		}
		out[string(name)] = string(body[:n])
		rest = body[n+1:]
	}
	return out
}

// stale reports whether the cache holds a record no claim of a fully
// listed set points at: a released or renewed claim's.
func (cs *Set) stale(messages map[string]string) bool {
	if !cs.full || len(messages) == 0 {
		return false
	}
	live := make(map[string]bool, len(cs.refs))
	for _, h := range cs.refs {
		live[h] = true
	}
	for h := range messages {
		if !live[h] {
			return true
		}
	}
	return false
}

// saveCache writes the messages of the claims the set knows. Failing to
// write a cache is not worth a warning: the next command reads commits.
func (cs *Set) saveCache(messages map[string]string) {
	keep := messages
	if cs.full {
		keep = map[string]string{}
		for _, h := range cs.refs {
			if m, ok := messages[h]; ok {
				keep[h] = m
			}
		}
	}
	var b bytes.Buffer
	for h, m := range keep {
		b.WriteString(h)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(len(m)))
		b.WriteByte('\n')
		b.WriteString(m)
		b.WriteByte('\n')
	}
	head := cacheHeader + strconv.FormatUint(uint64(crc32.ChecksumIEEE(b.Bytes())), 16) + "\n"
	_ = cs.store.WriteCache(cacheName, append([]byte(head), b.Bytes()...))
}
