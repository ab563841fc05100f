package gitrepo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// The revision grammar Resolve accepts, written here: go-git resolves
// revisions only through its Repository, which would link its whole
// porcelain (and OpenPGP) into td. Each rule is checked against git
// rev-parse in the tests.

// errUnborn reports a symbolic reference, such as HEAD on a new branch, to a
// branch without commits.
var errUnborn = errors.New("no commits yet")

// revisionProblem is why a revision names no commit, as opposed to a failure
// to read the repository.
type revisionProblem string

func (p revisionProblem) Error() string { return string(p) }

// resolve implements Resolve.
func (o *historyReader) resolve(rev string) (plumbing.Hash, error) {
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

func (o *historyReader) resolveRev(rev string) (plumbing.Hash, error) {
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
func (o *historyReader) resolveBase(base string) (plumbing.Hash, error) {
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
func (o *historyReader) resolveRef(name string) (plumbing.Hash, error) {
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
func (o *historyReader) expandShortHash(prefix string) (plumbing.Hash, error) {
	matches := o.objects.WithPrefix(strings.ToLower(prefix))
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

// maxTagDepth bounds the chain of annotated tags followed to a commit.
const maxTagDepth = 32

// peelToCommit follows annotated tags from h to the commit they name.
func (o *historyReader) peelToCommit(h plumbing.Hash) (plumbing.Hash, error) {
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
