package search

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"sort"
	"unsafe"

	"github.com/tdproject/td/repo"
)

// The filter cache, .todos/local/search.bin, keeps each issue's filter
// (filter.go) with the stamps of the two files it was built from: the
// issue file and its ledger, whose comments a search reads. A search
// trusts a filter only while both stamps are what they were, so an issue
// edited in place, a comment added, a checkout or a pull is searched from
// its files again and its filter rebuilt; what it costs is one stat of
// each ledger beside the issue files' own, and a read of the one file.
// Like the store's caches it is never a source of truth: a missing,
// corrupt or cut-short file is rebuilt by the next search.
//
// Layout: "TDSF", a version byte, the entry count, then for each entry in
// ID order its ID, the issue file's size and mtime, the ledger's size and
// mtime (size -1: no ledger), and its filter, each length-prefixed or
// varint-coded; a CRC-32 of all that ends the file.
const (
	cacheFile    = "search.bin"
	cacheMagic   = "TDSF"
	cacheVersion = 2 // 2: texts folded with Fold, accents off
)

type cacheEntry struct {
	id     string
	issue  repo.Stamp
	ledger repo.Stamp
	filter filter
}

// fresh reports whether the entry was built from the files the stamps
// stamp now.
func (e *cacheEntry) fresh(issue, ledger repo.Stamp) bool {
	return e.issue == issue && e.ledger == ledger && issue.Size >= 0 && ledger.Size != repo.StampUnknown
}

type cache []cacheEntry

// find returns the entry of id, nil when there is none.
func (c cache) find(id string) *cacheEntry {
	i := sort.Search(len(c), func(i int) bool { return c[i].id >= id })
	if i < len(c) && c[i].id == id {
		return &c[i]
	}
	return nil
}

func loadCache(s *repo.Store) cache {
	data, err := s.ReadCache(cacheFile)
	if err != nil {
		return nil
	}
	c, err := decodeCache(data)
	if err != nil {
		return nil // rebuilt by this search
	}
	return c
}

var errBadCache = errors.New("bad search cache")

func encodeCache(c cache) []byte {
	b := append([]byte(cacheMagic), cacheVersion)
	b = binary.AppendUvarint(b, uint64(len(c)))
	for _, e := range c {
		b = binary.AppendUvarint(b, uint64(len(e.id)))
		b = append(b, e.id...)
		for _, v := range []int64{e.issue.Size, e.issue.Mtime, e.ledger.Size, e.ledger.Mtime} {
			b = binary.AppendVarint(b, v)
		}
		b = binary.AppendUvarint(b, uint64(len(e.filter)))
		b = append(b, e.filter...)
	}
	return repo.SealCache(b)
}

// decodeCache reads what encodeCache wrote. IDs and filters share data's
// memory: data is a buffer read for this search alone.
func decodeCache(data []byte) (cache, error) {
	body, err := repo.CacheBody(data, cacheMagic, cacheVersion)
	if err != nil {
		return nil, errBadCache
	}
	d := decoder{b: body}
	n := d.uint()
	// An entry takes at least 15 bytes (an ID of one byte, four
	// varints, the smallest filter and two lengths), which bounds n
	// before anything is sized by it.
	if d.err != nil || n > uint64(len(d.b))/15 {
		return nil, errBadCache
	}
	c := make(cache, 0, n)
	for range n {
		var e cacheEntry
		id := d.bytes(256)
		if len(id) == 0 {
			return nil, errBadCache
		}
		e.id = unsafe.String(&id[0], len(id))
		e.issue = repo.Stamp{Size: d.int(), Mtime: d.int()}
		e.ledger = repo.Stamp{Size: d.int(), Mtime: d.int()}
		e.filter = filter(d.bytes(1 + (1<<maxFilterLog)/8))
		if d.err != nil || !e.filter.valid() || (len(c) > 0 && e.id <= c[len(c)-1].id) {
			return nil, errBadCache
		}
		c = append(c, e)
	}
	if len(d.b) != 0 {
		return nil, errBadCache
	}
	return c, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errBadCache, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errBadCache, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads a length-prefixed run of at most limit bytes.
func (d *decoder) bytes(limit int) []byte {
	n := d.uint()
	if d.err != nil || n > uint64(limit) || n > uint64(len(d.b)) {
		d.err, d.b = errBadCache, nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// saveCache writes the entries this search built over the ones it kept:
// of the old entries, only those of issues that still exist. An entry
// whose files changed within the racy window is left out, to be built
// again by the next search.
func saveCache(s *repo.Store, old cache, built []*cacheEntry, exists map[string]bool) {
	cutoff := repo.RacyCutoff()
	byID := make(map[string]cacheEntry, len(old)+len(built))
	for _, e := range old {
		if exists[e.id] {
			byID[e.id] = e
		}
	}
	changed := len(byID) != len(old)
	for _, e := range built {
		if e == nil || !e.issue.Trusted(cutoff) || !e.ledger.Trusted(cutoff) {
			continue
		}
		byID[e.id] = *e
		changed = true
	}
	if !changed {
		return
	}
	c := make(cache, 0, len(byID))
	for _, e := range byID {
		c = append(c, e)
	}
	sort.Slice(c, func(i, j int) bool { return c[i].id < c[j].id })
	// A cache that cannot be written costs the next search its speed.
	_ = s.WriteCache(cacheFile, encodeCache(c))
}

// CheckCache reports the filter cache when it exists but cannot be read or
// decoded, for td doctor: a search rebuilds it without a word, but one
// that keeps going bad points at something else.
func CheckCache(s *repo.Store) *repo.CacheProblem {
	rel := repo.TodosDir + "/" + repo.LocalDir + "/" + cacheFile
	data, err := s.ReadCache(cacheFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &repo.CacheProblem{Path: rel, Msg: "cannot be read (" + err.Error() + ")"}
	}
	if _, err := decodeCache(data); err != nil {
		return &repo.CacheProblem{Path: rel, Msg: "is corrupt (its checksum or layout does not match)"}
	}
	return nil
}

// RemoveCache removes the filter cache (a symlink in its place, not what
// it points to); the next search builds it again.
func RemoveCache(s *repo.Store) error {
	p := s.Path(repo.LocalDir, cacheFile)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s.FileError(p, err)
	}
	return nil
}
