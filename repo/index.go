package repo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tdproject/td/policy/domain"
)

// The index cache under .todos/local keeps every issue's decoded
// frontmatter and the counts of its checklist (Issue.Tally), keyed by file
// name and validated by size and mtime. It is
// never a source of truth: a missing, stale or corrupt cache is rebuilt from
// the issue files without a word.

const (
	IndexFile    = "index.bin"
	indexMagic   = "TDIX"
	indexVersion = 4
)

// racyWindow: a file modified this close to the cache write could change
// again within the same mtime tick, so its entry is not trusted later.
// (A variable for the test of a change that keeps size and mtime.)
var racyWindow = 2 * time.Second

// racyCutoff is the mtime (ns) from which a file is too fresh for a cache
// to trust: it could change again within the same mtime tick.
func racyCutoff() int64 { return time.Now().Add(-racyWindow).UnixNano() }

// storedMtime is the mtime a cache records for a file: -1, never trusted,
// when the file changed at or after cutoff.
func storedMtime(mtime, cutoff int64) int64 {
	if mtime >= cutoff {
		return -1
	}
	return mtime
}

// staysUntrusted reports whether an untrusted cache entry would be stored
// untrusted again: rewriting the cache for it alone gains nothing.
func staysUntrusted(cachedMtime, mtime, cutoff int64) bool {
	return cachedMtime == -1 && storedMtime(mtime, cutoff) == -1
}

type indexEntry struct {
	name  string
	size  int64
	mtime int64 // ns; -1 forces a re-read
	issue *Issue
	err   *ParseError
	// A file with conflict markers has both: err says so, and issue
	// (Conflicted) is what its ours side reads as, for td list.
}

// IssueIDs lists the IDs of the issue files under .todos/issues, read
// from the directory, not from the index cache.
func (s *Store) IssueIDs() ([]string, error) {
	stats, err := s.statIssues()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(stats))
	for i, st := range stats {
		ids[i] = strings.TrimSuffix(st.name, ".md")
	}
	return ids, nil
}

type fileStat struct {
	name  string
	size  int64
	mtime int64
	err   error
}

// statIssues lists issues/*.md and stats each file, in parallel: at 10,000
// files the stat calls dominate the cost of checking the cache.
func (s *Store) statIssues() ([]fileStat, error) {
	dir := s.Path(IssuesDir)
	// The names come from names.bin while the directory has gained, lost
	// and renamed nothing (names.go); each file is still stated below, so
	// an edit in place shows.
	all, err := s.issueFileNames()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.FileError(dir, err)
	}
	names := make([]string, 0, len(all))
	for _, n := range all {
		if strings.HasSuffix(n, ".md") && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	out := make([]fileStat, len(names))
	err = statIn(dir, names, func(i int, size, mtime int64, err error) {
		out[i] = fileStat{name: names[i], size: size, mtime: mtime, err: err}
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.FileError(dir, err)
	}
	return out, nil
}

// LoadAll returns every issue, from the cache where it is fresh and from
// the files where not, plus the parse errors of unreadable files. It
// rewrites the cache when anything changed. An issue whose file holds
// conflict markers is only an error here; List shows it as well.
func (s *Store) LoadAll() ([]*Issue, []error, error) {
	issues, _, perrs, err := s.LoadAllStamped()
	return issues, perrs, err
}

// LoadAllStamped is LoadAll with the stamp of each issue's file, in the
// order of the issues.
func (s *Store) LoadAllStamped() ([]*Issue, []Stamp, []error, error) {
	entries, err := s.loadEntries()
	if err != nil {
		return nil, nil, nil, err
	}
	var issues []*Issue
	var stamps []Stamp
	var perrs []error
	for _, e := range entries {
		if e.err != nil {
			perrs = append(perrs, e.err)
			continue
		}
		issues = append(issues, e.issue)
		stamps = append(stamps, Stamp{e.size, e.mtime})
	}
	return issues, stamps, perrs, nil
}

// loadEntries reads every issue's cache entry, refreshing the stale ones.
func (s *Store) loadEntries() ([]indexEntry, error) {
	stats, err := s.statIssues()
	if err != nil {
		return nil, err
	}
	cache := s.readIndex()
	entries := make([]indexEntry, len(stats))
	var stale []int
	// A file changed within the racy window is stored untrusted and read
	// again every time until the window passes; rewriting the cache for
	// it alone would store the same untrusted entry again.
	racyBefore := racyCutoff()
	dirty := len(cache) != len(stats)
	j := 0 // both stats and cache are sorted by name: walk them together
	for i, st := range stats {
		for j < len(cache) && cache[j].name < st.name {
			j++
		}
		if st.err != nil {
			entries[i] = indexEntry{name: st.name, mtime: -1, err: s.statError(st)}
			continue
		}
		stillRacy := false
		if j < len(cache) {
			c := cache[j]
			if c.name == st.name && c.size == st.size && c.mtime == st.mtime && c.mtime != -1 {
				entries[i] = c
				continue
			}
			stillRacy = c.name == st.name && staysUntrusted(c.mtime, st.mtime, racyBefore)
		}
		entries[i] = indexEntry{name: st.name, size: st.size, mtime: st.mtime}
		stale = append(stale, i)
		dirty = dirty || !stillRacy
	}
	s.parseEntries(entries, stale)
	if dirty {
		s.writeIndex(entries)
	}
	return entries, nil
}

func (s *Store) statError(st fileStat) *ParseError {
	return &ParseError{Path: TodosDir + "/" + IssuesDir + "/" + st.name, Msg: st.err.Error()}
}

// progressFrom is how many issue files a read must parse before
// Options.Progress hears of it.
var progressFrom = 2000 // a variable only for TestProgressHearsALongRead under -short

// parseHeapLimit bounds the Go heap of every td command (LimitHeap). It
// was first set only for a command that parses progressFrom or more
// issue files: the first command in a fresh clone of 100,000 issues
// parses them all, and at td's GOGC of 400 their garbage took its peak
// resident memory to 480 MB; under the limit, 170 MB. No command at
// 10,000 issues comes near it (td check peaks at about 100 MB and is as
// fast under it), and at 100,000 it kept td board --html, whose garbage
// otherwise grew to five times its 200 MB live, near its live size.
const parseHeapLimit = 160 << 20

// LimitHeap sets parseHeapLimit as the process's soft memory limit,
// unless GOMEMLIMIT, the user's, is set. The td program calls it once at
// start; BoundHeapTo may raise it for a command known to keep more live.
func LimitHeap() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(parseHeapLimit)
	}
}

// BoundHeapTo raises the process's memory limit (LimitHeap) to limit for a
// command that will read n files, n being progressFrom or more, and keeps
// more live than parseHeapLimit allows: td check --full against a base
// holds two listings of every file besides what it parses, and thrashes
// under parseHeapLimit. GOMEMLIMIT, when set, is the user's and stands.
func BoundHeapTo(n int, limit int64) {
	if n >= progressFrom && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}

// parseEntries reads and parses the listed entries in parallel.
func (s *Store) parseEntries(entries []indexEntry, idx []int) {
	var done atomic.Int64
	if report := s.opts.Progress; report != nil && len(idx) >= progressFrom {
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					report(len(idx), len(idx))
					return
				case <-t.C:
					report(int(done.Load()), len(idx))
				}
			}
		}()
		defer func() { close(stop); <-stopped }()
	}
	ForEach(len(idx), runtime.GOMAXPROCS(0), 64, func(k int) {
		defer done.Add(1)
		e := &entries[idx[k]]
		is, err := s.ReadIssueFile(strings.TrimSuffix(e.name, ".md"))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				pe = &ParseError{Path: TodosDir + "/" + IssuesDir + "/" + e.name, Msg: err.Error()}
			}
			e.err = pe
			if pe.Conflict {
				e.issue = s.conflictedIssue(strings.TrimSuffix(e.name, ".md"))
			}
			return
		}
		is.tally = is.Tally()
		is.Doc = nil // the cache keeps frontmatter and the checklist's counts only
		e.issue = is
	})
}

// readIndex returns the cached entries sorted by name, nil when the cache
// is missing or unreadable.
func (s *Store) readIndex() []indexEntry {
	data, err := s.readCache(IndexFile)
	if err != nil {
		return nil
	}
	entries, err := decodeIndexEntries(data)
	if err != nil {
		return nil // corrupt: rebuilt silently
	}
	return entries
}

func (s *Store) writeIndex(entries []indexEntry) {
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return
	}
	data := encodeIndex(entries, racyCutoff())
	// A failed cache write only costs speed next time. The child links
	// follow the index they are stamped with (children.go).
	if writeCacheFile(s.Path(LocalDir, IndexFile), data) == nil {
		_ = writeCacheFile(s.Path(LocalDir, childrenFile), encodeChildren(entries, data))
	}
}

type indexWriter struct{ b bytes.Buffer }

func (w *indexWriter) uint(v uint64) {
	var tmp [binary.MaxVarintLen64]byte
	w.b.Write(tmp[:binary.PutUvarint(tmp[:], v)])
}
func (w *indexWriter) int(v int64) {
	var tmp [binary.MaxVarintLen64]byte
	w.b.Write(tmp[:binary.PutVarint(tmp[:], v)])
}
func (w *indexWriter) str(s string) { w.uint(uint64(len(s))); w.b.WriteString(s) }
func (w *indexWriter) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}
func (w *indexWriter) time(t time.Time) {
	if t.IsZero() {
		w.int(0)
		return
	}
	w.int(t.Unix())
}

// encodeIndex writes the cache. Entries modified after racyBefore are stored
// as untrusted so they are re-read next time.
func encodeIndex(entries []indexEntry, racyBefore int64) []byte {
	var w indexWriter
	w.b.WriteString(indexMagic)
	w.b.WriteByte(indexVersion)
	head := w.b.Len() // offsets count from here, where the body starts
	w.uint(uint64(len(entries)))
	var starts []int
	for i, e := range entries {
		if i%indexChunk == 0 {
			starts = append(starts, w.b.Len()-head)
		}
		mtime := storedMtime(e.mtime, racyBefore)
		w.str(e.name)
		w.int(e.size)
		w.int(mtime)
		if e.err != nil {
			if e.issue != nil {
				w.b.WriteByte(2) // conflicted: the error, then the issue
			} else {
				w.b.WriteByte(0)
			}
			w.str(e.err.Path)
			w.uint(uint64(e.err.Line))
			w.str(e.err.Msg)
			if e.issue == nil {
				continue
			}
		} else {
			w.b.WriteByte(1)
		}
		is := e.issue
		for _, s := range []string{is.ID, is.Title, string(is.Status), string(is.Type), string(is.Priority), is.CreatedBy, is.Implementer, is.Assignee, string(is.Resolution), is.Path} {
			w.str(s)
		}
		if is.Minor {
			w.b.WriteByte(1)
		} else {
			w.b.WriteByte(0)
		}
		w.strs(is.Labels)
		w.uint(uint64(len(is.Links)))
		for _, l := range is.Links {
			w.str(string(l.Kind))
			w.str(l.To)
		}
		w.time(is.CreatedAt)
		w.time(is.UpdatedAt)
		t := is.Tally()
		for _, v := range []int{t.Done, t.Open, t.Dropped, t.Blocked, t.CriteriaTotal, t.CriteriaDone} {
			w.uint(uint64(v))
		}
	}
	// The chunk table, then where it starts (decodeIndexEntries).
	table := w.b.Len() - head
	w.uint(uint64(len(starts)))
	for _, st := range starts {
		w.uint(uint64(st))
	}
	var at [4]byte
	binary.BigEndian.PutUint32(at[:], uint32(table))
	w.b.Write(at[:])
	return w.seal()
}

// seal appends the CRC-32 of everything written so far and returns the
// bytes: every local cache file ends with one.
func (w *indexWriter) seal() []byte { return SealCache(w.b.Bytes()) }

// SealCache appends to b, a cache file's magic, version byte and body,
// the CRC-32 of all of it that every local cache file ends with (the
// store's own, and those a use case keeps through WriteCache).
func SealCache(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// CacheBody checks a sealed cache file's magic, version byte and CRC-32
// and returns the body between them.
func CacheBody(data []byte, magic string, version byte) ([]byte, error) {
	if err := checkCache(data, magic, version); err != nil {
		return nil, err
	}
	return data[len(magic)+1 : len(data)-4], nil
}

// checkCache checks a cache file's magic, version byte and trailing
// CRC-32.
func checkCache(data []byte, magic string, version byte) error {
	if len(data) < len(magic)+1+4 || string(data[:len(magic)]) != magic || data[len(magic)] != version {
		return errBadIndex
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(tail) {
		return errBadIndex
	}
	return nil
}

// openCache checks a cache file (checkCache) and returns a reader over
// the body between its header and checksum. The reader's strings share
// data's memory rather than copy it (16 MB at 100,000 issues): data is a
// buffer the caller read the file into and never writes again.
func openCache(data []byte, magic string, version byte) (*indexReader, error) {
	body, err := CacheBody(data, magic, version)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		return &indexReader{}, nil
	}
	return &indexReader{s: unsafe.String(&body[0], len(body))}, nil
}

var errBadIndex = errors.New("bad index")

// indexReader decodes the cache body. Strings are slices of one string
// holding the whole body, so that decoding 10,000 entries does not make
// 100,000 small allocations; the cache lives as long as one command.
type indexReader struct {
	s   string
	off int
	err error
}

func (r *indexReader) uint() uint64 {
	// Most values are lengths and counts under 128: one byte.
	if r.err == nil && r.off < len(r.s) && r.s[r.off] < 0x80 {
		r.off++
		return uint64(r.s[r.off-1])
	}
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.err != nil || r.off >= len(r.s) {
			r.err = errBadIndex
			return 0
		}
		c := r.s[r.off]
		r.off++
		if c < 0x80 {
			if shift == 63 && c > 1 {
				r.err = errBadIndex
				return 0
			}
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
	}
	r.err = errBadIndex
	return 0
}
func (r *indexReader) int() int64 {
	ux := r.uint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}
func (r *indexReader) byte() byte {
	if r.err != nil || r.off >= len(r.s) {
		r.err = errBadIndex
		return 0
	}
	b := r.s[r.off]
	r.off++
	return b
}
func (r *indexReader) str() string {
	n := r.uint()
	if r.err != nil || n > 1<<20 || n > uint64(len(r.s)-r.off) {
		r.err = errBadIndex
		return ""
	}
	v := r.s[r.off : r.off+int(n)]
	r.off += int(n)
	return v
}
func (r *indexReader) strs() []string {
	n := r.uint()
	if r.err != nil || n > 1<<16 {
		r.err = errBadIndex
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// skipStrs steps over what strs reads, checking the same bounds, without
// allocating.
func (r *indexReader) skipStrs() {
	n := r.uint()
	if r.err != nil || n > 1<<16 {
		r.err = errBadIndex
		return
	}
	for j := uint64(0); j < n && r.err == nil; j++ {
		r.str()
	}
}
func (r *indexReader) time() time.Time {
	v := r.int()
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(v, 0).UTC()
}

// decodeIndex reads the cache written by encodeIndex into a map by name.
func decodeIndex(data []byte) (map[string]indexEntry, error) {
	entries, err := decodeIndexEntries(data)
	if err != nil {
		return nil, err
	}
	m := make(map[string]indexEntry, len(entries))
	for _, e := range entries {
		m[e.name] = e
	}
	return m, nil
}

// decodeIndexEntries reads the cache written by encodeIndex. Entries come
// back in file order, which is sorted by name; a cache that is not is
// corrupt. The chunks of the cache are decoded in parallel: decoding is
// single-threaded work at the end of every listing, while the other core
// idles once the files are stated.
func decodeIndexEntries(data []byte) ([]indexEntry, error) {
	r, err := openCache(data, indexMagic, indexVersion)
	if err != nil {
		return nil, err
	}
	n := r.uint()
	// An entry takes at least four bytes (name length, size, mtime, kind),
	// which bounds n before any allocation is sized by it.
	if r.err != nil || n > 10_000_000 || n > uint64(len(r.s))/4 {
		return nil, errBadIndex
	}
	starts, end, err := indexChunks(r, n)
	if err != nil {
		return nil, err
	}
	out := make([]indexEntry, n)
	errs := make([]error, len(starts))
	ForEach(len(starts), runtime.GOMAXPROCS(0), 2, func(j int) {
		lo := j * indexChunk
		hi := min(lo+indexChunk, int(n))
		stop := end
		if j+1 < len(starts) {
			stop = starts[j+1]
		}
		c := &indexReader{s: r.s[:stop], off: starts[j]}
		errs[j] = decodeIndexChunk(c, out[lo:hi])
		if errs[j] == nil && c.off != stop {
			errs[j] = errBadIndex
		}
	})
	for j, err := range errs {
		if err != nil {
			return nil, err
		}
		// Within a chunk the order was checked; across chunks, here.
		if lo := j * indexChunk; j > 0 && out[lo].name <= out[lo-1].name {
			return nil, errBadIndex
		}
	}
	return out, nil
}

// indexChunk is how many entries the index decodes as one piece of work.
const indexChunk = 1024

// indexChunks reads the table at the end of the body that says where each
// chunk of indexChunk entries starts: the table's own offset in the last
// four bytes, then its count and offsets. It returns the offsets and where
// the entries end (the table's start), checking that they are in order
// and within the entries.
func indexChunks(r *indexReader, n uint64) (starts []int, end int, err error) {
	if len(r.s)-r.off < 4 {
		return nil, 0, errBadIndex
	}
	end = int(binary.BigEndian.Uint32([]byte(r.s[len(r.s)-4:])))
	if end < r.off || end > len(r.s)-4 {
		return nil, 0, errBadIndex
	}
	t := &indexReader{s: r.s[:len(r.s)-4], off: end}
	k := t.uint()
	if t.err != nil || k != (n+indexChunk-1)/indexChunk {
		return nil, 0, errBadIndex
	}
	starts = make([]int, k)
	for j := range starts {
		starts[j] = int(t.uint())
		if t.err != nil || starts[j] >= end || (j == 0 && starts[j] != r.off) || (j > 0 && starts[j] <= starts[j-1]) {
			return nil, 0, errBadIndex
		}
	}
	if t.off != len(t.s) || (k == 0 && end != r.off) {
		return nil, 0, errBadIndex
	}
	return starts, end, nil
}

// decodeIndexChunk decodes len(out) entries from r into out.
func decodeIndexChunk(r *indexReader, out []indexEntry) error {
	var issues []Issue // allocated in blocks rather than one by one
	for i := range out {
		e := indexEntry{name: r.str(), size: r.int(), mtime: r.int()}
		if r.err != nil {
			return r.err
		}
		if i > 0 && e.name <= out[i-1].name {
			return errBadIndex
		}
		kind := r.byte()
		if kind > 2 {
			return errBadIndex
		}
		if kind == 0 || kind == 2 {
			e.err = &ParseError{Path: r.str(), Line: int(r.uint()), Msg: r.str(), Conflict: kind == 2}
		}
		if kind != 0 {
			if len(issues) == 0 {
				issues = make([]Issue, min(len(out)-i, 512))
			}
			is := &issues[0]
			issues = issues[1:]
			for _, p := range []*string{&is.ID, &is.Title, (*string)(&is.Status), (*string)(&is.Type), (*string)(&is.Priority), &is.CreatedBy, &is.Implementer, &is.Assignee, (*string)(&is.Resolution), &is.Path} {
				*p = r.str()
			}
			is.Minor = r.byte() == 1
			is.Labels = r.strs()
			nl := r.uint()
			if nl > 1<<16 {
				return errBadIndex
			}
			for j := uint64(0); j < nl; j++ {
				is.Links = append(is.Links, domain.Link{Kind: domain.LinkKind(r.str()), To: r.str()})
			}
			is.CreatedAt = r.time()
			is.UpdatedAt = r.time()
			t := &is.tally
			for _, p := range []*int{&t.Done, &t.Open, &t.Dropped, &t.Blocked, &t.CriteriaTotal, &t.CriteriaDone} {
				*p = int(min(r.uint(), 1<<20))
			}
			is.Conflicted = kind == 2
			e.issue = is
		}
		out[i] = e
	}
	return r.err
}
