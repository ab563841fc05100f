package gitrepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// objectReader is the plumbing the porcelain reads git objects through:
// the history walks, revision resolution, tree lookups and the commit
// builder ask it for whole objects by name and know nothing of where or
// how they are stored. objectFiles reads them from a repository's loose
// object files and packs; tests give the porcelain objects of their own.
type objectReader interface {
	// Object returns the type and content of the object named h. The
	// content may be shared with the reader's cache and must not be
	// modified. The error wraps plumbing.ErrObjectNotFound when the
	// repository does not have the object.
	Object(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
	// Stream returns the type of the object named h and a reader of its
	// content, for a caller that may stop early: a loose object is then
	// inflated only as far as it is read. The reader is valid until the
	// next call. The error is Object's.
	Stream(h plumbing.Hash) (plumbing.ObjectType, io.Reader, error)
	// WithPrefix returns the names of the objects whose hexadecimal name
	// starts with prefix (lower case, at least two digits).
	WithPrefix(prefix string) []plumbing.Hash
	// Close releases what the reader opened.
	Close() error
}

// objectFiles reads the objects of a repository, and of the repositories it
// borrows objects from. Pack indexes are peeked at for a call's first few
// lookups (peekIndex), then decoded with go-git's idxfile, and pack
// entries read with go-git's packfile Scanner. Two decoders are
// written here, because go-git's cost what a user notices in a repository
// of 10,000 issues and 250 commits:
//
//   - Delta application: go-git's PatchDelta grows its result from 64 KiB,
//     clearing each larger buffer, which for the 400 KB tree of an issue
//     directory takes most of a history walk. BenchmarkPathHistory10k (200
//     packed commits) took 410 to 610 ms with it, about 110 ms here, and
//     allocated 195 MB against 81.
//   - Loose objects: go-git's objfile hashes every byte it inflates and is
//     read whole, while a loose tree is inflated here only as far as the
//     entry looked for. td log took 0.89 s of CPU against 0.45 s when the
//     recent history is loose, 2.7 s against 1.4 s when all of it is.
//
// Which file to ask stays here too: packs first, then loose objects, then
// packs that appeared meanwhile (a git gc running meanwhile moves loose
// objects into a new pack), as git does.
//
// One objectFiles serves one porcelain call. It keeps the objects that
// deltas build on, by their place in the pack, so that a chain of deltas of
// a large tree is decoded once per call: go-git's Packfile would key its
// cache by object name and so hash every object it decodes again.
type objectFiles struct {
	dirs    []string // the objects directory, then those of its alternates
	indexes map[string]*idxfile.MemoryIndex
	packs   []*pack
	listed  bool
	// looseFirst looks for a loose object before the packs: for objects td
	// wrote moments ago (a claim's commit), which git has not packed, so
	// that finding one costs no pack index.
	looseFirst bool

	cache      map[packPos]cachedObject
	cacheOrder []packPos // oldest first
	cacheBytes int

	loose *os.File      // the loose object being streamed, closed by the next call
	br    *bufio.Reader // buffers the compressed input
	zr    io.ReadCloser // a zlib reader, reset for each loose object
	cr    *bufio.Reader // buffers the inflated content of a loose object
}

// pack is a pack file and its version 2 index: decoded, or peeked at
// until lazyLookups lookups have been made.
type pack struct {
	path    string // the .pack file
	idxPath string
	idx     *idxfile.MemoryIndex // nil until decoded
	peek    *peekIndex           // nil until a lookup needs it
	lookups int
	f       *os.File // opened on first use
	scan    *packfile.Scanner
	gone    bool // the pack file could not be opened
}

// packPos is where an object starts in a pack file.
type packPos struct {
	pack *pack
	off  int64
}

type cachedObject struct {
	typ  plumbing.ObjectType
	data []byte
}

const (
	// objectCacheBudget bounds the bytes of decoded pack objects kept for
	// one call: enough for a chain of 50 deltas of a 10,000-entry tree.
	objectCacheBudget = 64 << 20
	// maxObjectSize bounds the memory one object may take.
	maxObjectSize = 1 << 30
	// maxDeltaDepth bounds a chain of deltas; git writes at most 4095.
	maxDeltaDepth = 4096
	// maxAlternateDepth is how deep git follows alternates of alternates.
	maxAlternateDepth = 5
)

// errNotInPacks reports an object none of the listed packs holds.
var errNotInPacks = errors.New("not in a pack")

// newObjectFiles returns a reader of the objects under objectsDir.
// indexes holds the pack indexes already decoded, by path, and receives
// those this reader decodes: an index names a pack by its checksum and
// never changes, so a Repo decodes each once.
func newObjectFiles(objectsDir string, indexes map[string]*idxfile.MemoryIndex) *objectFiles {
	if indexes == nil {
		indexes = make(map[string]*idxfile.MemoryIndex)
	}
	return &objectFiles{
		dirs:    objectDirs(objectsDir),
		indexes: indexes,
		cache:   make(map[packPos]cachedObject),
	}
}

// objectDirs returns dir and the object directories it borrows from,
// listed in objects/info/alternates (one path a line, relative to dir when
// not absolute), as clones made with --shared or --reference have.
func objectDirs(dir string) []string {
	dirs := []string{dir}
	for i, depth := 0, 0; i < len(dirs) && depth <= maxAlternateDepth; depth++ {
		end := len(dirs)
		for ; i < end; i++ {
			b, err := os.ReadFile(filepath.Join(dirs[i], "info", "alternates"))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				alt := resolveFrom(dirs[i], filepath.FromSlash(line))
				if !slices.Contains(dirs, alt) {
					dirs = append(dirs, alt)
				}
			}
		}
	}
	return dirs
}

// Close closes the files the reader opened.
func (o *objectFiles) Close() error {
	o.closeLoose()
	for _, p := range o.packs {
		if p.f != nil {
			p.f.Close()
			p.f, p.scan = nil, nil
		}
		p.peek.close()
		p.peek = nil
	}
	return nil
}

// Object looks h up in the packs, then among the loose objects, then in
// packs that appeared since the packs were listed.
func (o *objectFiles) Object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	typ, data, err := o.object(h, 0)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return typ, data, nil
}

func (o *objectFiles) object(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	typ, data, rd, err := o.find(h, depth)
	if err != nil || rd == nil {
		return typ, data, err
	}
	data, err = o.readLoose(rd)
	return typ, data, err
}

// Stream implements objectReader.
func (o *objectFiles) Stream(h plumbing.Hash) (plumbing.ObjectType, io.Reader, error) {
	typ, data, rd, err := o.find(h, 0)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	if rd == nil {
		return typ, bytes.NewReader(data), nil
	}
	return typ, rd, nil
}

// find returns a packed object's content, or a reader of a loose object's
// content with its size left to read.
func (o *objectFiles) find(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, *looseContent, error) {
	o.closeLoose()
	if o.looseFirst {
		if typ, rd, err := o.openLooseObject(h); !errors.Is(err, fs.ErrNotExist) {
			return typ, nil, rd, err
		}
	}
	o.ensurePacks()
	if typ, data, err := o.fromPacks(h, depth); !errors.Is(err, errNotInPacks) {
		return typ, data, nil, err
	}
	typ, rd, err := o.openLooseObject(h)
	if !errors.Is(err, fs.ErrNotExist) {
		return typ, nil, rd, err
	}
	if o.listPacks() {
		typ, data, err := o.fromPacks(h, depth)
		if !errors.Is(err, errNotInPacks) {
			return typ, data, nil, err
		}
	}
	return plumbing.InvalidObject, nil, nil, plumbing.ErrObjectNotFound
}

// ensurePacks lists the packs on first use.
func (o *objectFiles) ensurePacks() {
	if !o.listed {
		o.listPacks()
		o.listed = true
	}
}

// listPacks adds the packs not yet known, and reports whether there were
// any. Their indexes are decoded when first needed (see decoded and
// findOffset), not here.
func (o *objectFiles) listPacks() bool {
	var names []string
	for _, dir := range o.dirs {
		found, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		names = append(names, found...)
	}
	added := false
	for _, name := range names {
		packPath := strings.TrimSuffix(name, ".idx") + ".pack"
		if slices.ContainsFunc(o.packs, func(p *pack) bool { return p.path == packPath }) {
			continue
		}
		o.packs = append(o.packs, &pack{path: packPath, idxPath: name, idx: o.indexes[name]})
		added = true
	}
	return added
}

// decoded returns p's index decoded whole, decoding it on first use and
// keeping it for the Repo; nil when it does not decode, and the pack is
// then skipped.
func (o *objectFiles) decoded(p *pack) *idxfile.MemoryIndex {
	if p.idx == nil && !p.gone {
		if p.idx = decodePackIndex(p.idxPath); p.idx == nil {
			p.gone = true
		} else {
			o.indexes[p.idxPath] = p.idx
		}
		p.peek.close()
		p.peek = nil
	}
	return p.idx
}

// findOffset looks h up in p's index: in the decoded index when there is
// one, else by peeking at the file for the first lazyLookups lookups.
func (o *objectFiles) findOffset(p *pack, h plumbing.Hash) (int64, error) {
	if p.idx == nil && p.lookups < lazyLookups && !p.gone {
		p.lookups++
		if p.peek == nil {
			if p.peek = openPeekIndex(p.idxPath); p.peek == nil {
				p.gone = true
				return 0, plumbing.ErrObjectNotFound
			}
		}
		off, err := p.peek.findOffset(h)
		if err == nil || errors.Is(err, plumbing.ErrObjectNotFound) {
			return off, err
		}
		// A read that failed: the decoder says whether the index is sound.
	}
	idx := o.decoded(p)
	if idx == nil {
		return 0, plumbing.ErrObjectNotFound
	}
	return idx.FindOffset(h)
}

// decodePackIndex decodes a pack index with go-git's decoder, which checks
// its layout and checksum; nil when it is missing or damaged, as git skips
// such a pack.
func decodePackIndex(path string) *idxfile.MemoryIndex {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(idx); err != nil || idx.Version != idxfile.VersionSupported {
		return nil
	}
	return idx
}

// fromPacks reads h from the first pack that holds it and can still be
// opened (a git gc may have deleted a listed pack).
func (o *objectFiles) fromPacks(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for _, p := range o.packs {
		if p.gone {
			continue
		}
		off, err := o.findOffset(p, h)
		if err != nil {
			continue
		}
		if err := p.open(); err != nil {
			p.gone = true
			continue
		}
		return o.packObject(p, off, depth)
	}
	return plumbing.InvalidObject, nil, errNotInPacks
}

// open opens the pack file on first use.
func (p *pack) open() error {
	if p.f != nil {
		return nil
	}
	f, err := os.Open(p.path)
	if err != nil {
		return err
	}
	p.f, p.scan = f, packfile.NewScanner(f)
	return nil
}

// packObject decodes the object at off in p with go-git's pack scanner,
// resolving deltas with its PatchDelta. The base of a reference delta may
// be in another pack or loose.
func (o *objectFiles) packObject(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	key := packPos{p, off}
	if c, ok := o.cache[key]; ok {
		return c.typ, c.data, nil
	}
	if depth > maxDeltaDepth {
		return plumbing.InvalidObject, nil, errors.New("the chain of deltas is too long")
	}
	damaged := func(err error) error {
		return fmt.Errorf("%s is damaged at offset %d: %w", filepath.Base(p.path), off, err)
	}
	hdr, err := p.scan.SeekObjectHeader(off)
	if err != nil {
		return plumbing.InvalidObject, nil, damaged(err)
	}
	if hdr.Length < 0 || hdr.Length > maxObjectSize {
		return plumbing.InvalidObject, nil, fmt.Errorf("an object at offset %d of %s is larger than %d bytes", off, filepath.Base(p.path), maxObjectSize)
	}
	var buf bytes.Buffer
	buf.Grow(int(hdr.Length))
	n, _, err := p.scan.NextObject(&buf)
	if err == nil && n != hdr.Length {
		err = fmt.Errorf("%d bytes of content, the header says %d", n, hdr.Length)
	}
	if err != nil {
		return plumbing.InvalidObject, nil, damaged(err)
	}
	typ, data := hdr.Type, buf.Bytes()
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
		var base []byte
		if typ == plumbing.OFSDeltaObject {
			typ, base, err = o.packObject(p, hdr.OffsetReference, depth+1)
		} else if baseOff, ferr := o.findOffset(p, hdr.Reference); ferr == nil {
			typ, base, err = o.packObject(p, baseOff, depth+1)
		} else {
			typ, base, err = o.object(hdr.Reference, depth+1)
		}
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if data, err = applyDelta(base, data); err != nil {
			return plumbing.InvalidObject, nil, damaged(err)
		}
	default:
		return plumbing.InvalidObject, nil, damaged(fmt.Errorf("object type %d", typ))
	}
	o.remember(key, typ, data)
	return typ, data, nil
}

// remember caches a decoded pack object, forgetting the oldest ones beyond
// the budget.
func (o *objectFiles) remember(key packPos, typ plumbing.ObjectType, data []byte) {
	if len(data) > objectCacheBudget/4 {
		return
	}
	for o.cacheBytes+len(data) > objectCacheBudget && len(o.cacheOrder) > 0 {
		old := o.cacheOrder[0]
		o.cacheOrder = o.cacheOrder[1:]
		o.cacheBytes -= len(o.cache[old].data)
		delete(o.cache, old)
	}
	o.cache[key] = cachedObject{typ, data}
	o.cacheOrder = append(o.cacheOrder, key)
	o.cacheBytes += len(data)
}

// openLoose opens the loose object file of h. The error wraps
// fs.ErrNotExist when no object directory has it.
func (o *objectFiles) openLoose(h plumbing.Hash) (*os.File, error) {
	name := h.String()
	for _, dir := range o.dirs {
		f, err := os.Open(filepath.Join(dir, name[:2], name[2:]))
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, fs.ErrNotExist
}

// looseContent reads the inflated content of a loose object, failing when
// it is longer or shorter than its header says; reading it to the end
// checks the zlib stream's checksum.
type looseContent struct {
	r    *bufio.Reader
	left int64
}

func (c *looseContent) Read(p []byte) (int, error) {
	if c.left == 0 {
		var one [1]byte
		if m, err := io.ReadAtLeast(c.r, one[:], 1); m != 0 || !errors.Is(err, io.EOF) {
			if err != nil && !errors.Is(err, io.EOF) {
				return 0, err
			}
			return 0, errors.New("loose object: content longer than its header says")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if errors.Is(err, io.EOF) && c.left > 0 {
		err = errors.New("loose object: content shorter than its header says")
	}
	return n, err
}

// openLooseObject opens a loose object, a zlib stream of "<type>
// <size>\0" and the content, and reads its header. The error wraps
// fs.ErrNotExist when there is no such file.
func (o *objectFiles) openLooseObject(h plumbing.Hash) (plumbing.ObjectType, *looseContent, error) {
	f, err := o.openLoose(h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	o.loose = f
	if err := o.resetZlib(f); err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object: %w", err)
	}
	hdr, err := o.cr.ReadSlice(0)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object header: %w", err)
	}
	kind, sizeText, _ := strings.Cut(string(hdr[:len(hdr)-1]), " ")
	typ, err := plumbing.ParseObjectType(kind)
	size, err2 := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || err2 != nil || size < 0 || size > maxObjectSize {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object header %q is invalid", hdr[:len(hdr)-1])
	}
	return typ, &looseContent{r: o.cr, left: size}, nil
}

// readLoose reads the whole content of a loose object.
func (o *objectFiles) readLoose(c *looseContent) ([]byte, error) {
	defer o.closeLoose()
	data := make([]byte, c.left)
	if _, err := io.ReadFull(c, data); err != nil {
		return nil, err
	}
	if _, err := c.Read(nil); !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data, nil
}

// resetZlib points the reader's zlib reader at rd.
func (o *objectFiles) resetZlib(rd io.Reader) error {
	if o.br == nil {
		o.br = bufio.NewReaderSize(rd, 16<<10)
	} else {
		o.br.Reset(rd)
	}
	if o.zr == nil {
		zr, err := zlib.NewReader(o.br)
		if err != nil {
			return err
		}
		o.zr = zr
	} else if err := o.zr.(zlib.Resetter).Reset(o.br, nil); err != nil {
		return err
	}
	if o.cr == nil {
		o.cr = bufio.NewReaderSize(o.zr, 32<<10)
	} else {
		o.cr.Reset(o.zr)
	}
	return nil
}

// closeLoose closes the loose object last opened.
func (o *objectFiles) closeLoose() {
	if o.loose != nil {
		o.loose.Close()
		o.loose = nil
	}
}

// WithPrefix lists the objects, packed or loose, whose name starts with
// the hexadecimal prefix. A prefix matching nothing in the listed packs
// lists them again: a git gc may have packed the objects meanwhile.
func (o *objectFiles) WithPrefix(prefix string) []plumbing.Hash {
	o.ensurePacks()
	out := o.withPrefix(prefix)
	if len(out) == 0 && o.listPacks() {
		out = o.withPrefix(prefix)
	}
	return out
}

func (o *objectFiles) withPrefix(prefix string) []plumbing.Hash {
	var out []plumbing.Hash
	add := func(h plumbing.Hash) {
		if strings.HasPrefix(h.String(), prefix) && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	raw, _ := hex.DecodeString(prefix[:len(prefix)/2*2])
	for _, p := range o.packs {
		if idx := o.decoded(p); idx != nil {
			indexWithPrefix(idx, raw, add)
		}
	}
	for _, dir := range o.dirs {
		entries, _ := os.ReadDir(filepath.Join(dir, prefix[:2]))
		for _, e := range entries {
			if h, ok := parseFullHash(prefix[:2] + e.Name()); ok {
				add(h)
			}
		}
	}
	return out
}

// indexWithPrefix calls fn with each object name of a pack index starting
// with the bytes of prefix. go-git's index has no prefix search; its names
// are kept sorted in one slice per first byte, which is searched here.
func indexWithPrefix(idx *idxfile.MemoryIndex, prefix []byte, fn func(plumbing.Hash)) {
	if len(prefix) == 0 {
		return
	}
	k := idx.FanoutMapping[prefix[0]]
	if k < 0 || k >= len(idx.Names) {
		return
	}
	names := idx.Names[k]
	count := len(names) / hashLen
	name := func(i int) []byte { return names[i*hashLen : (i+1)*hashLen] }
	lo, hi := 0, count
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(name(mid), prefix) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < count && bytes.HasPrefix(name(i), prefix); i++ {
		var h plumbing.Hash
		copy(h[:], name(i))
		fn(h)
	}
}

// applyDelta rebuilds an object from its base and a delta: the base's size
// and the result's size, then instructions that copy a range of the base or
// insert literal bytes. The instructions are checked, and the size they
// produce counted, before any memory is taken for the result, so a delta
// whose header claims more than its instructions make (up to a gigabyte
// from a few bytes) is refused without allocating it.
func applyDelta(base, delta []byte) ([]byte, error) {
	bad := errors.New("invalid delta")
	srcSize, delta, ok := deltaSize(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, bad
	}
	dstSize, delta, ok := deltaSize(delta)
	if !ok || dstSize > maxObjectSize {
		return nil, bad
	}
	if n, ok := deltaOps(base, delta, dstSize, nil); !ok || n != dstSize {
		return nil, bad
	}
	out := make([]byte, 0, dstSize)
	deltaOps(base, delta, dstSize, func(b []byte) { out = append(out, b...) })
	return out, nil
}

// deltaOps walks a delta's instructions after its two sizes, passing each
// piece of the result to emit when it is not nil, and returns the size
// they make. It reports false for a damaged instruction, a copy outside
// the base, or a result past limit.
func deltaOps(base, delta []byte, limit uint64, emit func([]byte)) (uint64, bool) {
	var size uint64
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		var piece []byte
		switch {
		case cmd&0x80 != 0: // copy from the base
			var off, n uint64
			for bit := range 7 {
				if cmd&(1<<bit) == 0 {
					continue
				}
				if len(delta) == 0 {
					return size, false
				}
				if bit < 4 {
					off |= uint64(delta[0]) << (8 * bit)
				} else {
					n |= uint64(delta[0]) << (8 * (bit - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return size, false
			}
			piece = base[off : off+n]
		case cmd != 0: // insert the next cmd bytes
			n := int(cmd)
			if n > len(delta) {
				return size, false
			}
			piece, delta = delta[:n], delta[n:]
		default:
			return size, false
		}
		if size+uint64(len(piece)) > limit {
			return size, false
		}
		size += uint64(len(piece))
		if emit != nil {
			emit(piece)
		}
	}
	return size, true
}

// deltaSize decodes a size at the start of a delta: 7 bits a byte, least
// significant first.
func deltaSize(d []byte) (uint64, []byte, bool) {
	var v uint64
	for i, b := range d {
		if i > 9 {
			break
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return v, d[i+1:], true
		}
	}
	return 0, nil, false
}
