package gitrepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/heap"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Commits, tags and trees are decoded here, from objects read straight out of
// loose object files and pack files (see objectReader). Their formats take a
// few lines each, while go-git's object package would link OpenPGP into td
// and add its initialisation to every start, and go-git's storage copies and
// hashes again every object it caches.

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
	h, err := o.resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := o.readCommit(h)
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

func (o *objectReader) pathHistory(head plumbing.Hash, w *treeWalker, limit int) ([]PathChange, error) {
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
func (o *objectReader) walk(head plumbing.Hash, known func(hash string) bool, visit func(c *Commit, parents []*Commit) (stop bool, err error)) error {
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
func (o *objectReader) commitLoader() func(plumbing.Hash) (*Commit, error) {
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

// errUnborn reports a symbolic reference, such as HEAD on a new branch, to a
// branch without commits.
var errUnborn = errors.New("no commits yet")

// revisionProblem is why a revision names no commit, as opposed to a failure
// to read the repository.
type revisionProblem string

func (p revisionProblem) Error() string { return string(p) }

// resolve implements Resolve.
func (o *objectReader) resolve(rev string) (plumbing.Hash, error) {
	h, err := o.resolveRev(rev)
	var problem revisionProblem
	if errors.As(err, &problem) || errors.Is(err, errUnborn) {
		return plumbing.ZeroHash, fmt.Errorf("%w %q: %w", ErrUnknownRevision, rev, err)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w", rev, err)
	}
	return h, nil
}

func (o *objectReader) resolveRev(rev string) (plumbing.Hash, error) {
	base, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, suffix = rev[:i], rev[i:]
	}
	if base == "@" {
		base = "HEAD"
	}
	h, err := o.resolveBase(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h, err = o.peelToCommit(h); err != nil {
		return plumbing.ZeroHash, err
	}
	for suffix != "" {
		op := suffix[0]
		if op != '~' && op != '^' {
			return plumbing.ZeroHash, revisionProblem("only ~N and ^N may follow a name")
		}
		digits := 0
		for digits+1 < len(suffix) && suffix[digits+1] >= '0' && suffix[digits+1] <= '9' {
			digits++
		}
		n := 1
		if digits > 0 {
			v, err := strconv.Atoi(suffix[1 : 1+digits])
			if err != nil {
				return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("the number after %c is too large", op))
			}
			n = v
		}
		suffix = suffix[1+digits:]
		// ~N goes back N first parents; ^N takes the Nth parent, ^0 the
		// commit itself.
		steps, nth := n, 1
		if op == '^' {
			steps, nth = min(n, 1), n
		}
		for range steps {
			c, err := o.readCommit(h)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if nth > len(c.parent) {
				return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("commit %s has %d parents", c.Hash, len(c.parent)))
			}
			h = c.parent[nth-1]
		}
	}
	return h, nil
}

// errNoSuchName is the reason given for a name that matches nothing.
const errNoSuchName = revisionProblem("no such branch, tag, reference or commit")

// resolveBase looks up a revision without suffixes: a full object name, a
// reference in git's order of precedence, then an abbreviated object name.
func (o *objectReader) resolveBase(base string) (plumbing.Hash, error) {
	if h, ok := parseFullHash(base); ok {
		return h, nil
	}
	if !validRevName(base) {
		return plumbing.ZeroHash, revisionProblem("not a valid revision name")
	}
	var candidates []string
	if strings.HasPrefix(base, "refs/") || isPseudoRef(base) {
		candidates = append(candidates, base)
	}
	candidates = append(candidates, "refs/"+base, "refs/tags/"+base, "refs/heads/"+base, "refs/remotes/"+base, "refs/remotes/"+base+"/HEAD")
	for _, name := range candidates {
		h, err := o.resolveRef(name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		return h, err
	}
	if len(base) >= 4 && isHex(base) {
		return o.expandShortHash(base)
	}
	return plumbing.ZeroHash, errNoSuchName
}

// maxSymrefDepth bounds a chain of symbolic references, as git does.
const maxSymrefDepth = 5

// resolveRef follows a reference name to an object name. A symbolic
// reference to a missing branch yields errUnborn. The storage is called
// directly rather than through go-git's ReferenceStorer interface, which
// would link every method of the storage into td.
func (o *objectReader) resolveRef(name string) (plumbing.Hash, error) {
	ref, err := o.r.storage.Reference(plumbing.ReferenceName(name))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for depth := 0; ref.Type() == plumbing.SymbolicReference; depth++ {
		if depth == maxSymrefDepth {
			return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("%s is a chain of more than %d symbolic references", name, maxSymrefDepth))
		}
		target := ref.Target()
		ref, err = o.r.storage.Reference(target)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("%s points to %s, which has %w", name, target.Short(), errUnborn)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return ref.Hash(), nil
}

// expandShortHash finds the one object whose name starts with prefix; when
// several do and exactly one of them is a commit or a tag, that one wins, as
// git prefers commit-ish objects where a revision is expected.
func (o *objectReader) expandShortHash(prefix string) (plumbing.Hash, error) {
	prefix = strings.ToLower(prefix)
	o.ensurePacks()
	matches := o.objectsWithPrefix(prefix)
	if len(matches) == 0 && o.listPacks() {
		matches = o.objectsWithPrefix(prefix) // a git gc may have packed them
	}
	if len(matches) > 1 {
		var commitish []plumbing.Hash
		for _, h := range matches {
			if typ, _, err := o.read(h); err == nil && (typ == plumbing.CommitObject || typ == plumbing.TagObject) {
				commitish = append(commitish, h)
			}
		}
		if len(commitish) == 1 {
			return commitish[0], nil
		}
		return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("the short object name is ambiguous: %d objects start with it", len(matches)))
	}
	if len(matches) == 0 {
		return plumbing.ZeroHash, errNoSuchName
	}
	return matches[0], nil
}

// objectsWithPrefix lists the objects, packed or loose, whose name starts
// with the hexadecimal prefix (of at least two digits).
func (o *objectReader) objectsWithPrefix(prefix string) []plumbing.Hash {
	var out []plumbing.Hash
	add := func(h plumbing.Hash) {
		if strings.HasPrefix(h.String(), prefix) && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	raw, _ := hex.DecodeString(prefix[:len(prefix)/2*2])
	for _, p := range o.packs {
		p.withPrefix(raw, add)
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

// maxTagDepth bounds the chain of annotated tags followed to a commit.
const maxTagDepth = 32

// peelToCommit follows annotated tags from h to the commit they name.
func (o *objectReader) peelToCommit(h plumbing.Hash) (plumbing.Hash, error) {
	for range maxTagDepth {
		typ, data, err := o.read(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("object %s is missing", h))
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch typ {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			target, _ := headerValue(data, "object")
			next, ok := parseFullHash(target)
			if !ok {
				return plumbing.ZeroHash, fmt.Errorf("tag %s names no object", h)
			}
			h = next
		default:
			return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("object %s is a %s, not a commit", h, typ))
		}
	}
	return plumbing.ZeroHash, revisionProblem(fmt.Sprintf("more than %d nested tags", maxTagDepth))
}

// readCommit reads and decodes the commit named h.
func (o *objectReader) readCommit(h plumbing.Hash) (*Commit, error) {
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
func (o *objectReader) isShallow(h plumbing.Hash) bool {
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

// parseCommit decodes a commit object's content: header lines ("tree",
// "parent", "author", "committer", and others that are skipped, with their
// continuation lines starting with a space), a blank line, the message.
func parseCommit(data []byte) (*Commit, error) {
	c := &Commit{}
	haveTree := false
	rest := data
	for len(rest) > 0 {
		line := rest
		nl := bytes.IndexByte(rest, '\n')
		if nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = nil
		}
		if len(line) == 0 {
			c.Message = string(rest)
			break
		}
		if line[0] == ' ' {
			continue // continuation of a multi-line header such as gpgsig
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			h, ok := parseFullHash(string(value))
			if !ok {
				return nil, fmt.Errorf("bad tree line %q", line)
			}
			c.tree, haveTree = h, true
		case "parent":
			h, ok := parseFullHash(string(value))
			if !ok {
				return nil, fmt.Errorf("bad parent line %q", line)
			}
			c.parent = append(c.parent, h)
			c.Parents = append(c.Parents, h.String())
		case "author":
			c.Author = parseSignature(value)
		case "committer":
			c.Committer = parseSignature(value)
		}
	}
	if !haveTree {
		return nil, errors.New("it names no tree")
	}
	c.Trailers = parseTrailers(c.Message)
	return c, nil
}

// parseSignature decodes "Name <email> seconds ±hhmm", leniently as git does:
// a malformed date leaves When zero.
func parseSignature(b []byte) Signature {
	s := string(b)
	lt := strings.IndexByte(s, '<')
	gt := strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return Signature{Name: strings.TrimSpace(s)}
	}
	sig := Signature{Name: strings.TrimSpace(s[:lt]), Email: s[lt+1 : gt]}
	fields := strings.Fields(s[gt+1:])
	if len(fields) == 0 {
		return sig
	}
	sec, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return sig
	}
	zone := time.UTC
	if len(fields) > 1 {
		if off, ok := parseZone(fields[1]); ok {
			zone = time.FixedZone("", off)
		}
	}
	sig.When = time.Unix(sec, 0).In(zone)
	return sig
}

// parseZone decodes git's "+hhmm" time zone into seconds east of UTC.
func parseZone(tz string) (int, bool) {
	if len(tz) != 5 || tz[0] != '+' && tz[0] != '-' {
		return 0, false
	}
	hh, err1 := strconv.Atoi(tz[1:3])
	mm, err2 := strconv.Atoi(tz[3:5])
	if err1 != nil || err2 != nil {
		return 0, false
	}
	off := (hh*60 + mm) * 60
	if tz[0] == '-' {
		off = -off
	}
	return off, true
}

// headerValue returns the value of the first header line named key in a
// commit or tag object.
func headerValue(data []byte, key string) (string, bool) {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte{' '}); ok && string(k) == key {
			return string(v), true
		}
	}
	return "", false
}

// parseTrailers returns the trailers of a commit message the way git's
// interpret-trailers finds them: the last paragraph, which is never the first
// one (the title), is a trailer block when all its lines are "Key: value"
// trailers or their indented continuations, or when it holds a line git
// itself writes (Signed-off-by:, "(cherry picked from commit") and at least a
// quarter of its lines are trailers. Comment lines are ignored.
func parseTrailers(msg string) []Trailer {
	lines := strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	lines = kept
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	titleEnd := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			titleEnd = i
			break
		}
	}
	if titleEnd < 0 {
		return nil
	}
	start := len(lines)
	for start > titleEnd+1 && strings.TrimSpace(lines[start-1]) != "" {
		start--
	}
	block := lines[start:]
	if len(block) == 0 {
		return nil
	}
	var trailers []Trailer
	nTrailer, nOther, gitWritten := 0, 0, false
	inTrailer := false
	for _, l := range block {
		if l[0] == ' ' || l[0] == '\t' {
			if inTrailer {
				t := &trailers[len(trailers)-1]
				t.Value = strings.TrimSpace(t.Value + " " + strings.TrimSpace(l))
				continue
			}
			nOther++
			continue
		}
		if strings.HasPrefix(l, "(cherry picked from commit ") {
			nTrailer++
			gitWritten = true
			inTrailer = false
			continue
		}
		key, value, ok := splitTrailer(l)
		if !ok {
			nOther++
			inTrailer = false
			continue
		}
		if strings.EqualFold(key, "Signed-off-by") {
			gitWritten = true
		}
		nTrailer++
		inTrailer = true
		trailers = append(trailers, Trailer{Key: key, Value: value})
	}
	if nOther > 0 && (!gitWritten || nTrailer*3 < nOther) {
		return nil
	}
	return trailers
}

// splitTrailer parses "Key: value", where the key is letters, digits and
// dashes, optionally followed by blanks before the colon.
func splitTrailer(l string) (key, value string, ok bool) {
	i := 0
	for i < len(l) && (isAlnum(rune(l[i])) || l[i] == '-') {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	key = l[:i]
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i >= len(l) || l[i] != ':' {
		return "", "", false
	}
	return key, strings.TrimSpace(l[i+1:]), true
}

// Tree entry modes beyond those the index uses.
const modeTree = 0o040000

// treeEntry is what a tree holds at a path: found is false when nothing is
// there.
type treeEntry struct {
	found bool
	mode  uint32
	hash  plumbing.Hash
}

// treeWalker looks one path up in trees, remembering for each tree visited
// (by depth in the path and object name) what lies below it at the rest of
// the path. A tree whose name was seen before costs one map lookup, so the
// trees of commits that did not change the path's directories are never read.
type treeWalker struct {
	o     *objectReader
	parts []string
	memo  []map[plumbing.Hash]treeEntry
	reads []int // trees read at each depth
}

func newTreeWalker(o *objectReader, parts []string) *treeWalker {
	memo := make([]map[plumbing.Hash]treeEntry, len(parts))
	for i := range memo {
		memo[i] = make(map[plumbing.Hash]treeEntry)
	}
	return &treeWalker{o: o, parts: parts, memo: memo, reads: make([]int, len(parts))}
}

// lookup returns the entry at parts[depth:] below the tree named tree.
func (w *treeWalker) lookup(depth int, tree plumbing.Hash) (treeEntry, error) {
	if e, ok := w.memo[depth][tree]; ok {
		return e, nil
	}
	w.reads[depth]++
	e, err := w.o.treeEntry(tree, w.parts[depth])
	if err != nil {
		return treeEntry{}, err
	}
	if e.found && depth+1 < len(w.parts) {
		if e.mode&modeTypeMask == modeTree {
			if e, err = w.lookup(depth+1, e.hash); err != nil {
				return treeEntry{}, err
			}
		} else {
			e = treeEntry{} // a file where the path needs a directory
		}
	}
	w.memo[depth][tree] = e
	return e, nil
}

// treeEntry returns the entry called name in the tree named tree. A loose
// tree is decompressed only as far as the entry's place in the sorted tree,
// which for a directory of thousands of issue files halves the cost on
// average.
func (o *objectReader) treeEntry(tree plumbing.Hash, name string) (treeEntry, error) {
	o.ensurePacks()
	if !slices.ContainsFunc(o.packs, func(p *pack) bool { _, ok := p.find(tree); return ok }) {
		e, err := o.looseTreeEntry(tree, name)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return treeEntry{}, fmt.Errorf("read tree %s: %w", tree, err)
		}
	}
	typ, data, err := o.read(tree)
	if err != nil {
		return treeEntry{}, err
	}
	if typ != plumbing.TreeObject {
		return treeEntry{}, fmt.Errorf("object %s is a %s, not a tree", tree, typ)
	}
	e, err := findTreeEntry(data, name)
	if err != nil {
		return treeEntry{}, fmt.Errorf("read tree %s: %w", tree, err)
	}
	return e, nil
}

// looseTreeEntry finds name in a loose tree object while decompressing it.
// The error wraps fs.ErrNotExist when the object is not loose.
func (o *objectReader) looseTreeEntry(tree plumbing.Hash, name string) (treeEntry, error) {
	f, err := o.openLoose(tree)
	if err != nil {
		return treeEntry{}, err
	}
	defer f.Close()
	zr, err := o.resetZlib(f)
	if err != nil {
		return treeEntry{}, err
	}
	if o.tr == nil {
		o.tr = bufio.NewReaderSize(zr, 32<<10)
	} else {
		o.tr.Reset(zr)
	}
	hdr, err := o.tr.ReadSlice(0)
	if err != nil || !bytes.HasPrefix(hdr, []byte("tree ")) {
		return treeEntry{}, fmt.Errorf("not a loose tree object (header %q)", hdr)
	}
	for {
		mode, err := o.tr.ReadSlice(' ')
		if errors.Is(err, io.EOF) && len(mode) == 0 {
			return treeEntry{}, nil
		}
		if err != nil {
			return treeEntry{}, errors.New("truncated entry")
		}
		// The mode is decoded now: ReadSlice reuses the buffer.
		m, err := parseMode(mode[:len(mode)-1])
		if err != nil {
			return treeEntry{}, err
		}
		entryName, err := o.tr.ReadSlice(0)
		if err != nil {
			return treeEntry{}, errors.New("truncated entry")
		}
		match, past := compareTreeName(entryName[:len(entryName)-1], m&modeTypeMask == modeTree, name)
		if match {
			return o.looseEntryHash(m)
		}
		if past {
			return treeEntry{}, nil
		}
		if _, err := o.tr.Discard(hashLen); err != nil {
			return treeEntry{}, errors.New("truncated entry")
		}
	}
}

// looseEntryHash reads the object name ending the current entry.
func (o *objectReader) looseEntryHash(mode uint32) (treeEntry, error) {
	e := treeEntry{found: true, mode: mode}
	if _, err := io.ReadFull(o.tr, e.hash[:]); err != nil {
		return treeEntry{}, errors.New("truncated entry")
	}
	return e, nil
}

// findTreeEntry scans a tree object's entries ("<octal mode> <name>\0" and
// a 20-byte object name each) for name, stopping where git's sort order
// puts it.
func findTreeEntry(data []byte, name string) (treeEntry, error) {
	for len(data) > 0 {
		// Modes are 40000, 100644, 100755, 120000 or 160000.
		var sp int
		switch {
		case len(data) > 5 && data[5] == ' ':
			sp = 5
		case len(data) > 6 && data[6] == ' ':
			sp = 6
		default:
			sp = bytes.IndexByte(data, ' ')
		}
		if sp < 0 {
			return treeEntry{}, errors.New("truncated entry")
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || sp+1+nul+1+hashLen > len(data) {
			return treeEntry{}, errors.New("truncated entry")
		}
		entryName := data[sp+1 : sp+1+nul]
		next := sp + 1 + nul + 1 + hashLen
		match, past := compareTreeName(entryName, isTreeMode(data[:sp]), name)
		if match {
			mode, err := parseMode(data[:sp])
			if err != nil {
				return treeEntry{}, err
			}
			e := treeEntry{found: true, mode: mode}
			copy(e.hash[:], data[next-hashLen:next])
			return e, nil
		}
		if past {
			break
		}
		data = data[next:]
	}
	return treeEntry{}, nil
}

// compareTreeName reports whether a tree entry (a directory when dir) is
// called name, and otherwise whether it sorts after any entry that could be:
// git sorts a directory as if its name ended in '/', so a directory called
// name sorts after "name-x" and "name.x" and before "name0".
func compareTreeName(entry []byte, dir bool, name string) (match, past bool) {
	n := min(len(entry), len(name))
	if string(entry[:n]) != name[:n] {
		return false, string(entry[:n]) > name[:n]
	}
	switch {
	case len(entry) == len(name):
		return true, false
	case len(entry) > len(name):
		return false, entry[len(name)] > '/'
	default:
		return false, dir && name[len(entry)] < '/'
	}
}

// isTreeMode reports whether a tree entry's mode is a directory's (40000).
func isTreeMode(mode []byte) bool { return len(mode) == 5 && mode[0] == '4' }

// parseMode decodes a tree entry's octal mode.
func parseMode(mode []byte) (uint32, error) {
	var m uint32
	for _, c := range mode {
		if c < '0' || c > '7' || len(mode) > 7 {
			return 0, fmt.Errorf("bad mode %q", mode)
		}
		m = m<<3 | uint32(c-'0')
	}
	if len(mode) == 0 {
		return 0, errors.New("empty mode")
	}
	return m, nil
}

// parseFullHash parses a full hexadecimal object name.
func parseFullHash(s string) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(s) != 2*len(h) {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isPseudoRef reports whether name looks like HEAD, ORIG_HEAD or another
// pseudo-reference git keeps at the top of the git directory.
func isPseudoRef(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return strings.HasSuffix(name, "HEAD")
}

// validRevName applies git's reference name rules (git check-ref-format) to
// a revision name, so that nothing else reaches the reference storage.
func validRevName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.Contains(name, "@{") || name == "@" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// objectReader reads the objects of one Resolve, CommitAt, FileAt or
// PathHistory call straight from loose object files and pack files (through
// their version 2 .idx, which git has written by default since 2007), in the
// repository and in the repositories it borrows objects from. It keeps the
// objects that deltas build on, so a chain of tree deltas is decoded once per
// call; go-git's storage would copy every object and hash it again to cache
// it. It holds the Repo's stageMu while open, as every use of the storage
// (here, for references) must.
type objectReader struct {
	r      *Repo
	dirs   []string // the objects directory, then those of its alternates
	packs  []*pack
	listed bool

	cache      map[packPos]cachedObject
	cacheOrder []packPos // oldest first
	cacheBytes int

	shallow map[plumbing.Hash]bool // boundary commits of a shallow clone; nil until read

	br *bufio.Reader // buffers the compressed input
	zr io.ReadCloser // a zlib reader, reset for each object
	tr *bufio.Reader // buffers the decompressed loose tree being scanned
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
)

// errNotInPacks reports an object none of the listed packs holds.
var errNotInPacks = errors.New("not in a pack")

// openObjects locks the Repo's storage and returns a reader for one call;
// close releases both.
func (r *Repo) openObjects() *objectReader {
	r.stageMu.Lock()
	return &objectReader{
		r:     r,
		dirs:  objectDirs(filepath.Join(r.commonDir, "objects")),
		cache: make(map[packPos]cachedObject),
	}
}

// maxAlternateDepth is how deep git follows alternates of alternates.
const maxAlternateDepth = 5

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

// openLoose opens the loose object file of h. The error wraps
// fs.ErrNotExist when no object directory has it.
func (o *objectReader) openLoose(h plumbing.Hash) (*os.File, error) {
	name := h.String()
	for _, dir := range o.dirs {
		f, err := os.Open(filepath.Join(dir, name[:2], name[2:]))
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, fs.ErrNotExist
}

func (o *objectReader) close() {
	for _, p := range o.packs {
		if p.f != nil {
			p.f.Close()
		}
	}
	o.r.stageMu.Unlock()
}

// read returns the type and content of an object. The content may be shared
// with the reader's cache and must not be modified. The error wraps
// plumbing.ErrObjectNotFound when no object directory has it.
func (o *objectReader) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	typ, data, err := o.readDirect(h)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return typ, data, nil
}

// readDirect looks h up in the packs, then among the loose objects, then in
// packs that appeared since the packs were listed, as git does: a git gc
// running meanwhile moves loose objects into a new pack.
func (o *objectReader) readDirect(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	o.ensurePacks()
	if typ, data, err := o.fromPacks(h, 0); !errors.Is(err, errNotInPacks) {
		return typ, data, err
	}
	typ, data, err := o.loose(h)
	if !errors.Is(err, fs.ErrNotExist) {
		return typ, data, err
	}
	if o.listPacks() {
		typ, data, err := o.fromPacks(h, 0)
		if !errors.Is(err, errNotInPacks) {
			return typ, data, err
		}
	}
	return plumbing.InvalidObject, nil, plumbing.ErrObjectNotFound
}

// ensurePacks lists the packs on first use.
func (o *objectReader) ensurePacks() {
	if !o.listed {
		o.listPacks()
		o.listed = true
	}
}

// listPacks adds the version 2 pack indexes not yet known and reports
// whether there were any.
func (o *objectReader) listPacks() bool {
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
		if p := loadPackIndex(name, packPath); p != nil {
			o.packs = append(o.packs, p)
			added = true
		}
	}
	return added
}

// fromPacks reads h from the first pack that holds it and can still be
// opened (a git gc may have deleted a listed pack).
func (o *objectReader) fromPacks(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	for _, p := range o.packs {
		if p.gone {
			continue
		}
		if off, ok := p.find(h); ok {
			if err := p.open(); err != nil {
				p.gone = true
				continue
			}
			return o.packObject(p, off, depth)
		}
	}
	return plumbing.InvalidObject, nil, errNotInPacks
}

// packObject decodes the object at off in p, resolving deltas (git's
// Documentation/gitformat-pack.txt): a header of type and size, for an offset
// delta the distance back to its base, for a reference delta the base's
// name, then the zlib-compressed data.
func (o *objectReader) packObject(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	key := packPos{p, off}
	if c, ok := o.cache[key]; ok {
		return c.typ, c.data, nil
	}
	if depth > maxDeltaDepth {
		return plumbing.InvalidObject, nil, errors.New("the chain of deltas is too long")
	}
	corrupt := fmt.Errorf("%s is damaged at offset %d", filepath.Base(p.path), off)
	var hdr [32]byte
	n, err := p.f.ReadAt(hdr[:], off)
	if n == 0 {
		return plumbing.InvalidObject, nil, fmt.Errorf("%w: %v", corrupt, err)
	}
	b := hdr[0]
	kind, size, shift, i := (b>>4)&7, uint64(b&15), 4, 1
	for b&0x80 != 0 {
		if i >= n || shift > 57 {
			return plumbing.InvalidObject, nil, corrupt
		}
		b = hdr[i]
		i++
		size |= uint64(b&0x7f) << shift
		shift += 7
	}
	var baseOff int64
	var baseName plumbing.Hash
	switch kind {
	case 1, 2, 3, 4:
	case 6: // offset delta
		if i >= n {
			return plumbing.InvalidObject, nil, corrupt
		}
		b = hdr[i]
		i++
		dist := uint64(b & 0x7f)
		for b&0x80 != 0 {
			if i >= n || dist >= 1<<56 {
				return plumbing.InvalidObject, nil, corrupt
			}
			b = hdr[i]
			i++
			dist = (dist+1)<<7 | uint64(b&0x7f)
		}
		if dist == 0 || dist > uint64(off) {
			return plumbing.InvalidObject, nil, corrupt
		}
		baseOff = off - int64(dist)
	case 7: // reference delta
		if i+hashLen > n {
			return plumbing.InvalidObject, nil, corrupt
		}
		copy(baseName[:], hdr[i:i+hashLen])
		i += hashLen
	default:
		return plumbing.InvalidObject, nil, corrupt
	}
	if size > maxObjectSize {
		return plumbing.InvalidObject, nil, fmt.Errorf("an object at offset %d of %s is larger than %d bytes", off, filepath.Base(p.path), maxObjectSize)
	}
	start := off + int64(i)
	data, err := o.inflate(io.NewSectionReader(p.f, start, p.size-start), nil, int(size))
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("%w: %w", corrupt, err)
	}
	typ := plumbing.ObjectType(kind)
	if kind == 6 || kind == 7 {
		var base []byte
		if kind == 6 {
			typ, base, err = o.packObject(p, baseOff, depth+1)
		} else if baseOff, ok := p.find(baseName); ok {
			typ, base, err = o.packObject(p, baseOff, depth+1)
		} else {
			typ, base, err = o.read(baseName)
		}
		if err != nil {
			return plumbing.InvalidObject, nil, err
		}
		if data, err = applyDelta(base, data); err != nil {
			return plumbing.InvalidObject, nil, fmt.Errorf("%w: %w", corrupt, err)
		}
	}
	o.remember(key, typ, data)
	return typ, data, nil
}

// remember caches a decoded pack object, forgetting the oldest ones beyond
// the budget.
func (o *objectReader) remember(key packPos, typ plumbing.ObjectType, data []byte) {
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

// loose reads a loose object: a zlib stream of "<type> <size>\0" and the
// content. The error wraps fs.ErrNotExist when there is no such file.
func (o *objectReader) loose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	f, err := o.openLoose(h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer f.Close()
	var hdr [64]byte
	zr, err := o.resetZlib(f)
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object: %w", err)
	}
	n, nul := 0, -1
	for nul < 0 && n < len(hdr) {
		m, err := zr.Read(hdr[n:])
		n += m
		nul = bytes.IndexByte(hdr[:n], 0)
		if err != nil && nul < 0 {
			return plumbing.InvalidObject, nil, fmt.Errorf("loose object header: %w", err)
		}
	}
	if nul < 0 {
		return plumbing.InvalidObject, nil, errors.New("loose object header is too long")
	}
	kind, sizeText, _ := strings.Cut(string(hdr[:nul]), " ")
	typ, err := plumbing.ParseObjectType(kind)
	size, err2 := strconv.ParseUint(sizeText, 10, 64)
	if err != nil || err2 != nil || size > maxObjectSize || uint64(n-nul-1) > size {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object header %q is invalid", hdr[:nul])
	}
	data, err := o.inflate(nil, hdr[nul+1:n], int(size))
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("loose object: %w", err)
	}
	return typ, data, nil
}

// resetZlib points the reader's zlib reader at rd.
func (o *objectReader) resetZlib(rd io.Reader) (io.Reader, error) {
	if o.br == nil {
		o.br = bufio.NewReaderSize(rd, 16<<10)
	} else {
		o.br.Reset(rd)
	}
	if o.zr == nil {
		zr, err := zlib.NewReader(o.br)
		if err != nil {
			return nil, err
		}
		o.zr = zr
		return zr, nil
	}
	if err := o.zr.(zlib.Resetter).Reset(o.br, nil); err != nil {
		return nil, err
	}
	return o.zr, nil
}

// inflate returns size bytes of content: those of prefix, already
// decompressed, then the rest of the zlib stream, which is first opened on
// rd when rd is not nil. The stream must end there, which also checks its
// checksum.
func (o *objectReader) inflate(rd io.Reader, prefix []byte, size int) ([]byte, error) {
	zr := io.Reader(o.zr)
	if rd != nil {
		var err error
		if zr, err = o.resetZlib(rd); err != nil {
			return nil, err
		}
	}
	data := make([]byte, size)
	n := copy(data, prefix)
	if _, err := io.ReadFull(zr, data[n:]); err != nil {
		return nil, fmt.Errorf("content shorter than its header says: %w", err)
	}
	var one [1]byte
	if m, err := io.ReadAtLeast(zr, one[:], 1); m != 0 || !errors.Is(err, io.EOF) {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, errors.New("content longer than its header says")
	}
	return data, nil
}

// applyDelta rebuilds an object from its base and a delta: the base's size
// and the result's size, then instructions that copy a range of the base or
// insert literal bytes.
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
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0: // copy from the base
			var off, n uint64
			for bit := range 7 {
				if cmd&(1<<bit) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, bad
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
			if off+n > uint64(len(base)) || uint64(len(out))+n > dstSize {
				return nil, bad
			}
			out = append(out, base[off:off+n]...)
		case cmd != 0: // insert the next cmd bytes
			n := int(cmd)
			if n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, bad
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, bad
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, bad
	}
	return out, nil
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

// pack is a pack file and its version 2 index (git's
// Documentation/gitformat-pack.txt): a header, 256 cumulative counts by first
// byte, the sorted object names, their CRCs, their 31-bit offsets, then
// 64-bit offsets for large packs.
type pack struct {
	path  string // the .pack file
	idx   []byte // the whole .idx file
	count int
	f     *os.File // opened on first use
	size  int64
	gone  bool // the pack file could not be opened
}

const (
	idxFanoutOff = 8
	idxNamesOff  = idxFanoutOff + 256*4
)

// loadPackIndex reads a version 2 pack index, or returns nil when it is
// missing or in another format.
func loadPackIndex(idxPath, packPath string) *pack {
	b, err := os.ReadFile(idxPath)
	if err != nil || len(b) < idxNamesOff || string(b[:4]) != "\xfftOc" || binary.BigEndian.Uint32(b[4:]) != 2 {
		return nil
	}
	count := int(binary.BigEndian.Uint32(b[idxNamesOff-4:]))
	if count < 0 || len(b) < idxNamesOff+count*(hashLen+8)+2*hashLen {
		return nil
	}
	var prev uint32
	for i := range 256 {
		v := binary.BigEndian.Uint32(b[idxFanoutOff+4*i:])
		if v < prev {
			return nil
		}
		prev = v
	}
	return &pack{path: packPath, idx: b, count: count}
}

// find returns the offset of the object named h in the pack.
func (p *pack) find(h plumbing.Hash) (int64, bool) {
	be := binary.BigEndian
	lo := 0
	if h[0] > 0 {
		lo = int(be.Uint32(p.idx[idxFanoutOff+4*(int(h[0])-1):]))
	}
	hi := int(be.Uint32(p.idx[idxFanoutOff+4*int(h[0]):]))
	names := p.idx[idxNamesOff : idxNamesOff+p.count*hashLen]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(names[mid*hashLen:(mid+1)*hashLen], h[:]); {
		case c == 0:
			offsets := idxNamesOff + p.count*(hashLen+4)
			v := be.Uint32(p.idx[offsets+4*mid:])
			if v&0x80000000 == 0 {
				return int64(v), true
			}
			large := offsets + 4*p.count + 8*int(v&0x7fffffff)
			if large+8 > len(p.idx)-2*hashLen {
				return 0, false
			}
			off := be.Uint64(p.idx[large:])
			return int64(off), off < 1<<63
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// withPrefix calls fn with each object name of the pack starting with the
// bytes of prefix.
func (p *pack) withPrefix(prefix []byte, fn func(plumbing.Hash)) {
	if len(prefix) == 0 {
		return
	}
	be := binary.BigEndian
	lo := 0
	if prefix[0] > 0 {
		lo = int(be.Uint32(p.idx[idxFanoutOff+4*(int(prefix[0])-1):]))
	}
	hi := int(be.Uint32(p.idx[idxFanoutOff+4*int(prefix[0]):]))
	names := p.idx[idxNamesOff : idxNamesOff+p.count*hashLen]
	name := func(i int) []byte { return names[i*hashLen : (i+1)*hashLen] }
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(name(mid), prefix) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < p.count && bytes.HasPrefix(name(i), prefix); i++ {
		var h plumbing.Hash
		copy(h[:], name(i))
		fn(h)
	}
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
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	p.f, p.size = f, fi.Size()
	return nil
}
