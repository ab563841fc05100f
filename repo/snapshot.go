package repo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tdproject/td/repo/gitrepo"
)

// Snapshot is the .todos tree at one revision, or in the work tree as it
// is on disk (uncommitted changes included): which of td's files exist,
// and their bytes on demand. td diff compares two snapshots; td check reads
// the work tree's and compares it with a base revision's.
//
// The files a snapshot holds are td's own: config.yaml,
// security_events.jsonl, anchors.md, issues/*.md, history/*.jsonl and
// sessions/*.yaml. The local/ directory, dot files and anything else are
// left out. Reads are safe from several goroutines.
type Snapshot struct {
	// Rev is the revision as given; "" for the work tree.
	Rev string
	// Commit is the full object name of the revision's commit; "" for the
	// work tree.
	Commit string

	files map[string]*snapFile
	paths []string
	read  func(f *snapFile) ([]byte, error)

	// indexed, for the work tree, lists the object names git's index
	// vouches for (gitrepo.CleanIndexHashes), looked up once, the first
	// time a file's name is needed, and given to the files it names: a
	// file the index knows unchanged is compared without reading it.
	indexed     func() map[string]string
	indexedOnce sync.Once

	// part, for a partial snapshot (PartialSnapshotAt), is where the
	// issues it has not included are looked up; prefix is .todos's path
	// in the git work tree.
	part   *partialTree
	prefix string
}

// snapFile is one file of a snapshot. Its content is read once. A
// snapshot of 100,000 issues holds 200,000 of them, so it is kept small
// and with few pointers for the collector to follow: the object name is
// its 20 bytes, and what was read hangs off it only while it is wanted.
type snapFile struct {
	path    string // relative to the work tree root, slash-separated
	problem string // why td will not read it ("is a symlink; …"), or ""

	mu      sync.Mutex   // guards hash and content
	hash    objectName   // the blob's; for the work tree, learnt when first compared
	content *snapContent // nil until read, and again after Forget
}

// objectName is a git object name; the zero value is none known.
type objectName struct {
	sum   [20]byte
	known bool
}

// nameOf reads a full hexadecimal object name; anything else is none.
func nameOf(hexName string) objectName {
	var n objectName
	if len(hexName) != 2*len(n.sum) {
		return n
	}
	if _, err := hex.Decode(n.sum[:], []byte(hexName)); err != nil {
		return objectName{}
	}
	n.known = true
	return n
}

// String is the name in hexadecimal, "" when none is known.
func (n objectName) String() string {
	if !n.known {
		return ""
	}
	return hex.EncodeToString(n.sum[:])
}

// snapContent is what reading a snapFile gave.
type snapContent struct {
	data []byte
	err  error
}

// WorkTree reports whether the snapshot is of the work tree.
func (sn *Snapshot) WorkTree() bool { return sn.Commit == "" }

// Label names the snapshot for people: the revision, or "work tree".
func (sn *Snapshot) Label() string {
	if sn.WorkTree() {
		return "work tree"
	}
	return sn.Rev
}

// Paths returns the files of the snapshot, sorted.
func (sn *Snapshot) Paths() []string { return sn.paths }

// Has reports whether the snapshot holds the file at path.
func (sn *Snapshot) Has(path string) bool { return sn.files[path] != nil }

// Read returns the content of the file at path, shared with every other
// reader: nobody may change it. A file td will not read
// (a symlink, one over its size limit) is a *ParseError naming it; a path
// the snapshot does not hold wraps fs.ErrNotExist.
func (sn *Snapshot) Read(path string) ([]byte, error) {
	f := sn.files[path]
	if f == nil {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.content == nil {
		c := &snapContent{}
		if f.problem != "" {
			c.err = &ParseError{Path: f.path, Msg: f.problem}
		} else {
			c.data, c.err = sn.read(f)
		}
		f.content = c
	}
	return f.content.data, f.content.err
}

// Forget drops the content read of the file at path, to be read again if
// asked for: a check of 100,000 files keeps only those it judges.
func (sn *Snapshot) Forget(path string) {
	if f := sn.files[path]; f != nil {
		f.mu.Lock()
		f.content = nil
		f.mu.Unlock()
	}
}

// Same reports whether the file at path has the same content in both
// snapshots (both absent counts as the same). For the work tree it reads
// the file to learn its object name.
func (sn *Snapshot) Same(other *Snapshot, path string) bool {
	a, b := sn.files[path], other.files[path]
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ha, hb := sn.hashOf(a), other.hashOf(b)
	return ha.known && ha == hb
}

// hashOf returns the file's object name; a work tree file's is taken
// from git's index or computed from its content the first time it is
// asked for, and is none known when the file cannot be read.
func (sn *Snapshot) hashOf(f *snapFile) objectName {
	if sn.indexed != nil {
		sn.indexedOnce.Do(func() {
			for p, h := range sn.indexed() {
				if f := sn.files[p]; f != nil {
					f.mu.Lock()
					f.hash = nameOf(h)
					f.mu.Unlock()
				}
			}
		})
	}
	f.mu.Lock()
	h := f.hash
	f.mu.Unlock()
	if h.known {
		return h
	}
	data, err := sn.Read(f.path)
	if err != nil {
		return objectName{}
	}
	// Two callers may both hash the file; they agree.
	h = nameOf(gitrepo.BlobHash(data))
	f.mu.Lock()
	f.hash = h
	f.mu.Unlock()
	return h
}

// prefetch reads the files at paths in parallel, so that later reads come
// from memory. Errors stay with each file for Read to return.
func (sn *Snapshot) Prefetch(paths []string) {
	ForEach(len(paths), IOWorkers(), 64, func(i int) { sn.Read(paths[i]) })
}

// PrefetchHashes learns the object name of the files at paths in
// parallel, so that Same then only compares. A work tree file that git's
// index vouches for (its stat data unchanged since it was staged) is not
// read: a diff of 100,000 issues against a branch reads the files that
// changed, not every file.
func (sn *Snapshot) PrefetchHashes(paths []string) {
	ForEach(len(paths), IOWorkers(), 64, func(i int) {
		if f := sn.files[paths[i]]; f != nil {
			sn.hashOf(f)
		}
	})
}

// snapshotSizeLimit is the largest file of each kind td reads.
func snapshotSizeLimit(rel string) int64 {
	switch {
	case strings.HasSuffix(rel, ".md"):
		return MaxIssueFileSize
	case strings.HasSuffix(rel, ".jsonl"):
		return maxLedgerSize
	}
	return 1 << 20
}

// snapshotWants reports whether rel (relative to .todos) is one of td's
// committed files, and so belongs in a snapshot.
func snapshotWants(rel string) bool {
	dir, name := path.Split(rel)
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch dir {
	case "":
		return name == ConfigFile || name == SecurityEvents || name == AnchorsFile
	case IssuesDir + "/":
		return strings.HasSuffix(name, ".md")
	case HistoryDir + "/":
		return strings.HasSuffix(name, ".jsonl")
	case SessionsDir + "/":
		return strings.HasSuffix(name, ".yaml")
	}
	return false
}

// WorkTreeSnapshot lists td's files in the work tree.
func (s *Store) WorkTreeSnapshot() (*Snapshot, error) {
	sn := &Snapshot{files: map[string]*snapFile{}}
	add := func(rel string, mode fs.FileMode) {
		if !snapshotWants(rel) {
			return
		}
		f := &snapFile{path: TodosDir + "/" + rel}
		switch {
		case mode&fs.ModeSymlink != 0:
			f.problem = "is a symlink; td does not follow symlinks under .todos"
		case !mode.IsRegular():
			f.problem = "is not a regular file"
		}
		sn.files[f.path] = f
	}
	top, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, s.FileError(s.Dir, err)
	}
	for _, e := range top {
		add(e.Name(), e.Type())
	}
	for _, d := range []string{IssuesDir, HistoryDir, SessionsDir} {
		if err := refuseSymlink(s.Path(d)); err != nil {
			return nil, err
		}
		ents, err := os.ReadDir(s.Path(d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, s.FileError(s.Path(d), err)
		}
		for _, e := range ents {
			add(d+"/"+e.Name(), e.Type())
		}
	}
	sn.indexed = func() map[string]string {
		g, err := s.GitRepo()
		if err != nil || g == nil {
			return nil
		}
		prefix, err := s.TodosInRepo(g)
		if err != nil {
			return nil
		}
		hashes, err := g.CleanIndexHashes(prefix)
		if err != nil {
			return nil
		}
		out := make(map[string]string, len(hashes))
		for p, h := range hashes {
			out[TodosDir+"/"+strings.TrimPrefix(p, prefix+"/")] = h
		}
		return out
	}
	sn.read = func(f *snapFile) ([]byte, error) {
		data, err := readNoFollow(filepath.Join(s.Root, filepath.FromSlash(f.path)), snapshotSizeLimit(f.path))
		var r *refusal
		if errors.As(err, &r) {
			return nil, &ParseError{Path: f.path, Msg: r.reason}
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.path, err)
		}
		return data, nil
	}
	sn.sortPaths()
	return sn, nil
}

// SnapshotAt lists td's files in the commit rev names. An unknown revision
// is a not_found error saying so.
func (s *Store) SnapshotAt(rev string) (*Snapshot, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, Errorf(CodeRefused, "comparing with revision %q needs a git repository, and %s is not in one", rev, s.Root)
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	commit, files, err := g.ListTree(rev, prefix)
	if err != nil {
		return nil, RevisionError(rev, err)
	}
	sn := &Snapshot{Rev: rev, Commit: commit, files: map[string]*snapFile{}}
	for _, tf := range files {
		rel := strings.TrimPrefix(tf.Path, prefix+"/")
		if !snapshotWants(rel) {
			continue
		}
		f := &snapFile{path: TodosDir + "/" + rel, hash: nameOf(tf.Hash)}
		if !tf.IsRegular() {
			f.problem = "is a symlink; td does not follow symlinks under .todos"
		}
		sn.files[f.path] = f
	}
	sn.read = func(f *snapFile) ([]byte, error) {
		data, err := g.ReadBlob(f.hash.String())
		if err != nil {
			return nil, fmt.Errorf("read %s at %s: %w", f.path, rev, err)
		}
		if limit := snapshotSizeLimit(f.path); int64(len(data)) > limit {
			return nil, &ParseError{Path: f.path, Msg: fmt.Sprintf("is %d bytes at %s, over the %d byte limit", len(data), rev, limit)}
		}
		return data, nil
	}
	sn.sortPaths()
	return sn, nil
}

// todosInRepo is the path of .todos relative to the git work tree root,
// which differs from ".todos" when td's root is a subdirectory of it.
func (s *Store) TodosInRepo(g *gitrepo.Repo) (string, error) {
	rel, err := filepath.Rel(g.Root(), s.Dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", Errorf(CodeInternal, "%s is outside the git work tree %s", s.Dir, g.Root())
	}
	return filepath.ToSlash(rel), nil
}

func (sn *Snapshot) sortPaths() {
	sn.paths = make([]string, 0, len(sn.files))
	for p := range sn.files {
		sn.paths = append(sn.paths, p)
	}
	sort.Strings(sn.paths)
}

// revisionError turns a failure to find a revision into one sentence.
func RevisionError(rev string, err error) error {
	if errors.Is(err, gitrepo.ErrUnknownRevision) {
		return &Error{Code: CodeNotFound, Msg: fmt.Sprintf("unknown revision %q: name a branch, tag or commit (git branch -a lists the branches)", rev), Err: err}
	}
	return fmt.Errorf("read revision %s: %w", rev, err)
}

// issueIDOf returns the issue a snapshot path belongs to (its issue file
// or its ledger) and whether it is one of those.
func IssueIDOf(p string) (string, bool) {
	if name, ok := strings.CutPrefix(p, TodosDir+"/"+IssuesDir+"/"); ok {
		return strings.CutSuffix(name, ".md")
	}
	if name, ok := strings.CutPrefix(p, TodosDir+"/"+HistoryDir+"/"); ok {
		return strings.CutSuffix(name, ".jsonl")
	}
	return "", false
}

// memSnapshot is a snapshot of the given files (path under .todos →
// content), as a revision would hold them.
func MemSnapshot(rev string, files map[string]string) *Snapshot {
	sn := &Snapshot{Rev: rev, Commit: strings.Repeat("0", 40), files: map[string]*snapFile{}}
	for p, content := range files {
		full := TodosDir + "/" + p
		sn.files[full] = &snapFile{path: full, hash: nameOf(gitrepo.BlobHash([]byte(content)))}
	}
	sn.read = func(f *snapFile) ([]byte, error) { return []byte(files[strings.TrimPrefix(f.path, TodosDir+"/")]), nil }
	sn.sortPaths()
	return sn
}

// StagedSnapshot is the .todos tree git commit would record: HEAD's,
// with the staged changes (from gitrepo's StagedChangesIn) applied. A path
// the index holds a conflict for is a file td will not read. Before the
// first commit every staged file is new. Of HEAD's issue files and ledgers
// it holds those of ids (a partial snapshot, see PartialSnapshotAt): the
// staged changes should name only issues among them.
func (s *Store) StagedSnapshot(changes []gitrepo.StagedChange, ids []string) (*Snapshot, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, Errorf(CodeRefused, "the staged changes need a git repository, and %s is not in one", s.Root)
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	sn, err := s.PartialSnapshotAt("HEAD", ids)
	if err != nil {
		if _, rerr := g.Resolve("HEAD"); rerr == nil {
			return nil, err
		}
		sn = &Snapshot{Rev: "HEAD", files: map[string]*snapFile{}} // no commit yet
	}
	sn.Rev, sn.Commit = "the staged changes", ""
	for _, c := range changes {
		rel, ok := strings.CutPrefix(c.Path, prefix+"/")
		if !ok || !snapshotWants(rel) {
			continue
		}
		p := TodosDir + "/" + rel
		switch {
		case c.Deleted:
			delete(sn.files, p)
		case c.Unmerged:
			sn.files[p] = &snapFile{path: p, problem: "has an unresolved merge conflict in the index"}
		default:
			f := &snapFile{path: p, hash: nameOf(c.Hash)}
			if c.Mode&0o170000 != 0o100000 {
				f.problem = "is a symlink; td does not follow symlinks under .todos"
			}
			sn.files[p] = f
		}
	}
	read := sn.read
	sn.read = func(f *snapFile) ([]byte, error) {
		if read != nil {
			return read(f)
		}
		return g.ReadBlob(f.hash.String())
	}
	sn.sortPaths()
	return sn, nil
}
