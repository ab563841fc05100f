package gitrepo

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// The history porcelain: what td asks of committed history (a revision's
// commit, a file at a revision, the commits that changed a path), answered
// through a historyReader over the objectReader plumbing.

// ErrUnknownRevision is wrapped by the errors Resolve, CommitAt and FileAt
// return when a revision names no commit: a missing or ambiguous name, an
// unborn HEAD, or an object that is not a commit.
var ErrUnknownRevision = errors.New("unknown revision")

// Signature is the author or committer line of a commit: who and when.
type Signature struct {
	Name  string
	Email string
	When  time.Time // in the time zone the commit recorded
}

// String formats the signature as git does: "Name <email>".
func (s Signature) String() string { return s.Name + " <" + s.Email + ">" }

// Trailer is one "Key: value" line of a commit message's trailer block, such
// as "Td-Session: ses_7hq2m4p1"; the policy reads who did what from them.
type Trailer struct {
	Key   string // as written
	Value string // trimmed; folded continuation lines joined by one space
}

// Commit is a decoded commit object.
type Commit struct {
	Hash      string   // full hexadecimal object name
	Parents   []string // object names of the parents, in order
	Author    Signature
	Committer Signature
	Message   string    // verbatim, trailers included
	Trailers  []Trailer // the trailers of the message's last paragraph, in order
	// Shallow is true for the boundary commit of a shallow clone: its
	// parents are not in this clone, so Parents is empty.
	Shallow bool

	tree   plumbing.Hash
	parent []plumbing.Hash
}

// Trailer returns the values of the trailers named key, compared
// case-insensitively as git does, in the order they appear.
func (c *Commit) Trailer(key string) []string {
	var values []string
	for _, t := range c.Trailers {
		if strings.EqualFold(t.Key, key) {
			values = append(values, t.Value)
		}
	}
	return values
}

// PathChange is one commit that changed a path, as PathHistory reports it.
type PathChange struct {
	Commit  *Commit
	Added   bool // no parent had the path
	Deleted bool // the commit does not have the path
}

// Resolve returns the full object name of the commit rev names: HEAD (or @),
// a branch or tag name, a full reference name (refs/...), a remote-tracking
// branch, a full object name or a unique prefix of at least four hexadecimal
// digits, each optionally followed by ~N and ^N suffixes as in git. Names are
// tried in git's order (refs/, refs/tags/, refs/heads/, refs/remotes/) and win
// over a short hash; annotated tags are followed to their commit. Anything
// else, and HEAD on a branch without commits, is an error wrapping
// ErrUnknownRevision.
func (r *Repo) Resolve(rev string) (string, error) {
	o := r.openObjects()
	defer o.close()
	h, err := o.resolve(rev)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// CommitAt decodes the commit with the given full object name. Names that
// need resolving go through Resolve first.
func (r *Repo) CommitAt(hash string) (*Commit, error) {
	h, ok := parseFullHash(hash)
	if !ok {
		return nil, fmt.Errorf("read commit %q: %w: not a full object name", hash, ErrUnknownRevision)
	}
	o := r.openObjects()
	defer o.close()
	return o.readCommit(h)
}

// FileAt returns the content of the file at path (relative to the work tree
// root, slash-separated) in the commit rev names. The error wraps
// fs.ErrNotExist when the commit has no file there, and ErrUnknownRevision
// when rev names no commit. A symbolic link yields its target.
func (r *Repo) FileAt(rev, path string) ([]byte, error) {
	parts, err := splitTreePath(path)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, err)
	}
	o := r.openObjects()
	defer o.close()
	_, c, err := o.commitAt(rev)
	if err != nil {
		return nil, err
	}
	w := newTreeWalker(o, parts)
	e, err := w.lookup(0, c.tree)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, err)
	}
	switch {
	case !e.found:
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, fs.ErrNotExist)
	case e.mode&modeTypeMask == modeTree:
		return nil, fmt.Errorf("read %s at %s: it is a directory", path, rev)
	case e.mode&modeTypeMask == modeGitlink:
		return nil, fmt.Errorf("read %s at %s: it is a submodule", path, rev)
	}
	typ, data, err := o.read(e.hash)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, err)
	}
	if typ != plumbing.BlobObject {
		return nil, fmt.Errorf("read %s at %s: object %s is a %s, not a blob", path, rev, e.hash, typ)
	}
	return data, nil
}

// PathHistory returns the commits reachable from HEAD that changed path,
// newest first by committer time: those whose entry at path (blob and mode)
// differs from every parent's, or, for a root commit, that have the path. All
// parents of merges are followed and each commit is visited once; a merge that
// took one side's version unchanged is not listed, the commit on that side
// is. A directory path lists the commits that changed anything below it.
// limit <= 0 means no limit. On a branch without commits the result is empty.
//
// The path is looked up one directory at a time and each tree's answer is
// remembered by its object name, so a directory is decoded only in the
// commits that changed it: with thousands of issue files in one directory,
// the cost grows with the number of commits that touched that directory.
func (r *Repo) PathHistory(path string, limit int) ([]PathChange, error) {
	parts, err := splitTreePath(path)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	o := r.openObjects()
	defer o.close()
	head, err := o.resolve("HEAD")
	if errors.Is(err, errUnborn) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	changes, err := o.pathHistory(head, newTreeWalker(o, parts), limit)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	return changes, nil
}

func (o *historyReader) pathHistory(head plumbing.Hash, w *treeWalker, limit int) ([]PathChange, error) {
	var out []PathChange
	err := o.walk(head, nil, func(c *Commit, parents []*Commit) (bool, error) {
		mine, err := w.lookup(0, c.tree)
		if err != nil {
			return false, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		changed, added := len(parents) == 0 && mine.found, true
		if len(parents) > 0 {
			changed = true
		}
		for _, p := range parents {
			theirs, err := w.lookup(0, p.tree)
			if err != nil {
				return false, fmt.Errorf("commit %s: %w", p.Hash, err)
			}
			if theirs == mine {
				changed = false
			}
			if theirs.found {
				added = false
			}
		}
		if !changed || c.Shallow {
			return false, nil
		}
		out = append(out, PathChange{Commit: c, Added: added && mine.found, Deleted: !mine.found})
		return limit > 0 && len(out) >= limit, nil
	})
	return out, err
}

// walk visits the commits reachable from head, newest first by committer
// time (ties in the order met), each once, with its parents read. A parent
// for which known returns true is handed to visit but neither visited nor
// walked past. visit returning true ends the walk.
func (o *historyReader) walk(head plumbing.Hash, known func(hash string) bool, visit func(c *Commit, parents []*Commit) (stop bool, err error)) error {
	load := o.commitLoader()
	first, err := load(head)
	if err != nil {
		return err
	}
	q := &commitQueue{}
	heap.Push(q, queued{commit: first})
	seen := map[plumbing.Hash]bool{head: true}
	for seq := 1; q.Len() > 0; {
		c := heap.Pop(q).(queued).commit
		parents := make([]*Commit, 0, len(c.parent))
		for _, ph := range c.parent {
			p, err := load(ph)
			if err != nil {
				return fmt.Errorf("parent of %s: %w", c.Hash, err)
			}
			parents = append(parents, p)
			if known != nil && known(ph.String()) {
				continue // compared against, never walked past
			}
			if !seen[ph] {
				seen[ph] = true
				heap.Push(q, queued{commit: p, seq: seq})
				seq++
			}
		}
		stop, err := visit(c, parents)
		if err != nil || stop {
			return err
		}
	}
	return nil
}

// commitLoader returns a function that reads commits, each once: a walk
// meets a commit again as the parent of each of its children.
func (o *historyReader) commitLoader() func(plumbing.Hash) (*Commit, error) {
	commits := make(map[plumbing.Hash]*Commit)
	return func(h plumbing.Hash) (*Commit, error) {
		if c := commits[h]; c != nil {
			return c, nil
		}
		c, err := o.readCommit(h)
		if err != nil {
			return nil, err
		}
		commits[h] = c
		return c, nil
	}
}

// queued is a commit waiting in the walk; seq keeps the order of commits with
// the same committer time stable.
type queued struct {
	commit *Commit
	seq    int
}

// commitQueue is a heap of commits, newest committer time first.
type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	ti, tj := q[i].commit.Committer.When, q[j].commit.Committer.When
	if !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// splitTreePath turns a repository-relative path into its components,
// refusing paths that cannot name anything in a tree.
func splitTreePath(p string) ([]string, error) {
	clean := path.Clean(filepath.ToSlash(p))
	if p == "" || clean == "." || strings.HasPrefix(clean, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.IndexByte(p, 0) >= 0 {
		return nil, fmt.Errorf("%q is not a path inside the repository", p)
	}
	return strings.Split(clean, "/"), nil
}

// commitAt resolves rev and reads its commit.
func (o *historyReader) commitAt(rev string) (plumbing.Hash, *Commit, error) {
	h, err := o.resolve(rev)
	if err != nil {
		return h, nil, err
	}
	c, err := o.readCommit(h)
	return h, c, err
}

// readCommit reads and decodes the commit named h.
func (o *historyReader) readCommit(h plumbing.Hash) (*Commit, error) {
	typ, data, err := o.read(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: commit %s is missing", ErrUnknownRevision, h)
	}
	if err != nil {
		return nil, err
	}
	if typ != plumbing.CommitObject {
		return nil, fmt.Errorf("%w: object %s is a %s, not a commit", ErrUnknownRevision, h, typ)
	}
	c, err := parseCommit(data)
	if err != nil {
		return nil, fmt.Errorf("decode commit %s: %w", h, err)
	}
	c.Hash = h.String()
	if o.isShallow(h) {
		// A shallow clone has this commit but not its parents: git treats
		// it as a root ("grafted"); the walks here stop at it and, since
		// what it changed cannot be known, report nothing for it.
		c.parent, c.Parents, c.Shallow = nil, nil, true
	}
	return c, nil
}

// ShallowBoundary returns the boundary commits of a shallow clone, sorted
// and joined by spaces; "" for a full clone. A cache of history facts keys
// on it: deepening the clone brings older commits in.
func (r *Repo) ShallowBoundary() string {
	b, err := os.ReadFile(filepath.Join(r.commonDir, "shallow"))
	if err != nil {
		return ""
	}
	hs := strings.Fields(string(b))
	sort.Strings(hs)
	return strings.Join(hs, " ")
}

// isShallow reports whether h is a boundary commit of a shallow clone, as
// listed in the repository's shallow file (one hash a line).
func (o *historyReader) isShallow(h plumbing.Hash) bool {
	if o.shallow == nil {
		o.shallow = map[plumbing.Hash]bool{}
		if b, err := os.ReadFile(filepath.Join(o.r.commonDir, "shallow")); err == nil {
			for _, line := range strings.Fields(string(b)) {
				if sh, ok := parseFullHash(line); ok {
					o.shallow[sh] = true
				}
			}
		}
	}
	return o.shallow[h]
}

// historyReader is the porcelain's view of the repository for one call of
// Resolve, CommitAt, FileAt, the history walks or Commit: objects through
// the objectReader plumbing, references through go-git's storage, and the
// boundary of a shallow clone. It holds the Repo's stageMu while open, as
// every use of the storage must.
type historyReader struct {
	r       *Repo
	objects objectReader
	shallow map[plumbing.Hash]bool // boundary commits of a shallow clone; nil until read
	tr      *bufio.Reader          // buffers the tree being scanned
}

// openObjects locks the Repo's storage and returns a reader for one call;
// close releases both.
func (r *Repo) openObjects() *historyReader {
	r.stageMu.Lock()
	return r.lockedObjects()
}

// lockedObjects returns a reader for a caller that already holds stageMu;
// closeFiles releases its files but not the mutex.
func (r *Repo) lockedObjects() *historyReader {
	if r.packIndexes == nil {
		r.packIndexes = make(map[string]*idxfile.MemoryIndex)
	}
	return &historyReader{r: r, objects: newObjectFiles(filepath.Join(r.commonDir, "objects"), r.packIndexes)}
}

func (o *historyReader) close() {
	o.closeFiles()
	o.r.stageMu.Unlock()
}

func (o *historyReader) closeFiles() { o.objects.Close() }

// read returns the type and content of an object. The content may be shared
// with the reader's cache and must not be modified. The error wraps
// plumbing.ErrObjectNotFound when the repository does not have it.
func (o *historyReader) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return o.objects.Object(h)
}
