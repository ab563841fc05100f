package gitrepo

import (
	"bytes"
	"container/heap"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Commits, tags and trees are decoded here from the raw objects the storage
// returns. Their formats are a few lines each, while go-git's object package
// would link OpenPGP into td and add its initialisation to every start.

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
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	h, err := r.resolve(rev)
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
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	return r.readCommit(h)
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
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	h, err := r.resolve(rev)
	if err != nil {
		return nil, err
	}
	c, err := r.readCommit(h)
	if err != nil {
		return nil, err
	}
	w := newTreeWalker(r, parts)
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
	typ, data, err := r.readObject(e.hash)
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
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	head, err := r.resolve("HEAD")
	if errors.Is(err, errUnborn) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	changes, err := r.pathHistory(head, parts, limit)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", path, err)
	}
	return changes, nil
}

func (r *Repo) pathHistory(head plumbing.Hash, parts []string, limit int) ([]PathChange, error) {
	w := newTreeWalker(r, parts)
	commits := make(map[plumbing.Hash]*Commit)
	load := func(h plumbing.Hash) (*Commit, error) {
		if c := commits[h]; c != nil {
			return c, nil
		}
		c, err := r.readCommit(h)
		if err != nil {
			return nil, err
		}
		commits[h] = c
		return c, nil
	}
	first, err := load(head)
	if err != nil {
		return nil, err
	}
	q := &commitQueue{}
	heap.Push(q, queued{commit: first})
	seen := map[plumbing.Hash]bool{head: true}
	var out []PathChange
	for seq := 1; q.Len() > 0; {
		c := heap.Pop(q).(queued).commit
		mine, err := w.lookup(0, c.tree)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		changed, added := len(c.parent) == 0 && mine.found, true
		if len(c.parent) > 0 {
			changed = true
		}
		for _, ph := range c.parent {
			p, err := load(ph)
			if err != nil {
				return nil, fmt.Errorf("parent of %s: %w", c.Hash, err)
			}
			theirs, err := w.lookup(0, p.tree)
			if err != nil {
				return nil, fmt.Errorf("commit %s: %w", p.Hash, err)
			}
			if theirs == mine {
				changed = false
			}
			if theirs.found {
				added = false
			}
			if !seen[ph] {
				seen[ph] = true
				heap.Push(q, queued{commit: p, seq: seq})
				seq++
			}
		}
		if !changed {
			continue
		}
		out = append(out, PathChange{Commit: c, Added: added && mine.found, Deleted: !mine.found})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
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
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
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

// resolve implements Resolve; the caller holds stageMu.
func (r *Repo) resolve(rev string) (plumbing.Hash, error) {
	h, err := r.resolveRev(rev)
	var problem revisionProblem
	if errors.As(err, &problem) || errors.Is(err, errUnborn) {
		return plumbing.ZeroHash, fmt.Errorf("%w %q: %w", ErrUnknownRevision, rev, err)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w", rev, err)
	}
	return h, nil
}

func (r *Repo) resolveRev(rev string) (plumbing.Hash, error) {
	base, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, suffix = rev[:i], rev[i:]
	}
	if base == "@" {
		base = "HEAD"
	}
	h, err := r.resolveBase(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h, err = r.peelToCommit(h); err != nil {
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
			c, err := r.readCommit(h)
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
func (r *Repo) resolveBase(base string) (plumbing.Hash, error) {
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
		h, err := r.resolveRef(name)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		return h, err
	}
	if len(base) >= 4 && isHex(base) {
		return r.expandShortHash(base)
	}
	return plumbing.ZeroHash, errNoSuchName
}

// resolveRef follows a reference name to an object name. A symbolic
// reference to a missing branch yields errUnborn.
func (r *Repo) resolveRef(name string) (plumbing.Hash, error) {
	ref, err := r.storage.Reference(plumbing.ReferenceName(name))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if ref.Type() == plumbing.SymbolicReference {
		target, err := storer.ResolveReference(r.storage, ref.Target())
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("%s points to %s, which has %w", name, ref.Target().Short(), errUnborn)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		ref = target
	}
	return ref.Hash(), nil
}

// expandShortHash finds the one object whose name starts with prefix; when
// several do and exactly one of them is a commit or a tag, that one wins, as
// git prefers commit-ish objects where a revision is expected.
func (r *Repo) expandShortHash(prefix string) (plumbing.Hash, error) {
	prefix = strings.ToLower(prefix)
	raw, _ := hex.DecodeString(prefix[:len(prefix)/2*2])
	hashes, err := r.storage.HashesWithPrefix(raw)
	if err == nil && len(hashes) == 0 {
		r.storage.Reindex() // see readObject
		hashes, err = r.storage.HashesWithPrefix(raw)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("look up objects starting with %s: %w", prefix, err)
	}
	var matches []plumbing.Hash
	for _, h := range hashes {
		if strings.HasPrefix(h.String(), prefix) && !containsHash(matches, h) {
			matches = append(matches, h)
		}
	}
	if len(matches) > 1 {
		var commitish []plumbing.Hash
		for _, h := range matches {
			if obj, err := r.storage.EncodedObject(plumbing.AnyObject, h); err == nil && (obj.Type() == plumbing.CommitObject || obj.Type() == plumbing.TagObject) {
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

func containsHash(hs []plumbing.Hash, h plumbing.Hash) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// maxTagDepth bounds the chain of annotated tags followed to a commit.
const maxTagDepth = 32

// peelToCommit follows annotated tags from h to the commit they name.
func (r *Repo) peelToCommit(h plumbing.Hash) (plumbing.Hash, error) {
	for range maxTagDepth {
		typ, data, err := r.readObject(h)
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

// readObject returns the type and content of an object, loose or packed.
// When the object is not found, the list of packs is read again and the
// lookup retried once, as git does: a git gc running since the packs were
// first listed may have moved loose objects into a new pack.
func (r *Repo) readObject(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	obj, err := r.storage.EncodedObject(plumbing.AnyObject, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		r.storage.Reindex()
		obj, err = r.storage.EncodedObject(plumbing.AnyObject, h)
	}
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, err)
	}
	return obj.Type(), data, nil
}

// readCommit reads and decodes the commit named h.
func (r *Repo) readCommit(h plumbing.Hash) (*Commit, error) {
	typ, data, err := r.readObject(h)
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
	return c, nil
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
	r     *Repo
	parts []string
	memo  []map[plumbing.Hash]treeEntry
}

func newTreeWalker(r *Repo, parts []string) *treeWalker {
	memo := make([]map[plumbing.Hash]treeEntry, len(parts))
	for i := range memo {
		memo[i] = make(map[plumbing.Hash]treeEntry)
	}
	return &treeWalker{r: r, parts: parts, memo: memo}
}

// lookup returns the entry at parts[depth:] below the tree named tree.
func (w *treeWalker) lookup(depth int, tree plumbing.Hash) (treeEntry, error) {
	if e, ok := w.memo[depth][tree]; ok {
		return e, nil
	}
	typ, data, err := w.r.readObject(tree)
	if err != nil {
		return treeEntry{}, err
	}
	if typ != plumbing.TreeObject {
		return treeEntry{}, fmt.Errorf("object %s is a %s, not a tree", tree, typ)
	}
	e, err := findTreeEntry(data, w.parts[depth])
	if err != nil {
		return treeEntry{}, fmt.Errorf("tree %s: %w", tree, err)
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

// findTreeEntry scans a tree object's entries ("<octal mode> <name>\0" and
// a 20-byte object name each) for name.
func findTreeEntry(data []byte, name string) (treeEntry, error) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return treeEntry{}, errors.New("truncated entry")
		}
		nul := bytes.IndexByte(data[sp+1:], 0)
		if nul < 0 || sp+1+nul+1+hashLen > len(data) {
			return treeEntry{}, errors.New("truncated entry")
		}
		entryName := data[sp+1 : sp+1+nul]
		next := sp + 1 + nul + 1 + hashLen
		if string(entryName) == name {
			mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
			if err != nil {
				return treeEntry{}, fmt.Errorf("bad mode %q", data[:sp])
			}
			e := treeEntry{found: true, mode: uint32(mode)}
			copy(e.hash[:], data[next-hashLen:next])
			return e, nil
		}
		data = data[next:]
	}
	return treeEntry{}, nil
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
