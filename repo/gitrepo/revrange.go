package gitrepo

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// What td diff and td check need beside history: the files of a directory
// at a revision, a blob by name, the ancestry of a commit, the merge base
// of two revisions and the branch a pull request is usually based on.

// ErrNoMergeBase is wrapped by the error MergeBase returns when two
// revisions share no history.
var ErrNoMergeBase = errors.New("no common ancestor")

// ErrNoDefaultBranch is wrapped by the error DefaultBranch returns when the
// repository has none of the branches it looks for.
var ErrNoDefaultBranch = errors.New("no default branch")

// TreeFile is a file in a commit's tree.
type TreeFile struct {
	// Path is relative to the work tree root, slash-separated.
	Path string
	// Mode is the entry's git mode: 0100644 or 0100755 for a file, 0120000
	// for a symbolic link.
	Mode uint32
	// Hash is the blob's full hexadecimal object name.
	Hash string
}

// IsRegular reports whether the entry is a plain file (not a symbolic
// link).
func (f TreeFile) IsRegular() bool { return f.Mode&modeTypeMask == modeRegular }

// ListTree returns the commit rev names and the files below dir in it,
// recursively, in git's tree order. A dir the commit does not have yields
// no files. Submodules are left out. The error wraps ErrUnknownRevision when
// rev names no commit.
func (r *Repo) ListTree(rev, dir string) (string, []TreeFile, error) {
	parts, err := splitTreePath(dir)
	if err != nil {
		return "", nil, fmt.Errorf("list %s at %s: %w", dir, rev, err)
	}
	o := r.openObjects()
	defer o.close()
	h, c, err := o.commitAt(rev)
	if err != nil {
		return "", nil, err
	}
	e, err := newTreeWalker(o, parts).lookup(0, c.tree)
	if err != nil {
		return "", nil, fmt.Errorf("list %s at %s: %w", dir, rev, err)
	}
	if !e.found || e.mode&modeTypeMask != modeTree {
		return h.String(), nil, nil
	}
	var files []TreeFile
	if err := o.listTree(e.hash, dir, &files, 0); err != nil {
		return "", nil, fmt.Errorf("list %s at %s: %w", dir, rev, err)
	}
	return h.String(), files, nil
}

// maxListDepth bounds the nesting ListTree follows.
const maxListDepth = 64

// listTree appends the files below the tree named tree, whose path is dir.
func (o *historyReader) listTree(tree plumbing.Hash, dir string, out *[]TreeFile, depth int) error {
	if depth > maxListDepth {
		return fmt.Errorf("%s is nested more than %d directories deep", dir, maxListDepth)
	}
	typ, data, err := o.read(tree)
	if err != nil {
		return err
	}
	if typ != plumbing.TreeObject {
		return fmt.Errorf("object %s is a %s, not a tree", tree, typ)
	}
	for len(data) > 0 {
		e, rest, err := nextRawEntry(data)
		if err != nil {
			return fmt.Errorf("tree %s: %w", tree, err)
		}
		data = rest
		sp := slices.Index(e.whole, ' ')
		mode, err := parseMode(e.whole[:sp])
		if err != nil {
			return fmt.Errorf("tree %s: %w", tree, err)
		}
		var h plumbing.Hash
		copy(h[:], e.whole[len(e.whole)-hashLen:])
		p := dir + "/" + string(e.name)
		switch mode & modeTypeMask {
		case modeTree:
			if err := o.listTree(h, p, out, depth+1); err != nil {
				return err
			}
		case modeGitlink:
		default:
			*out = append(*out, TreeFile{Path: p, Mode: mode, Hash: h.String()})
		}
	}
	return nil
}

// ReadBlob returns the content of the blob with the given full object name.
func (r *Repo) ReadBlob(hash string) ([]byte, error) {
	h, ok := parseFullHash(hash)
	if !ok {
		return nil, fmt.Errorf("read blob %q: not a full object name", hash)
	}
	o := r.openObjects()
	defer o.close()
	typ, data, err := o.read(h)
	if err != nil {
		return nil, err
	}
	if typ != plumbing.BlobObject {
		return nil, fmt.Errorf("object %s is a %s, not a blob", h, typ)
	}
	// The reader's cache may share data; the caller gets its own copy.
	return slices.Clone(data), nil
}

// BlobHash returns the object name git gives a file with this content, so
// that a work tree file can be compared with a tree entry without reading
// the blob.
func BlobHash(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Ancestors returns the commits reachable from rev, rev included, by full
// object name. A shallow clone's history ends at its boundary.
func (r *Repo) Ancestors(rev string) (map[string]bool, error) {
	o := r.openObjects()
	defer o.close()
	h, err := o.resolve(rev)
	if err != nil {
		return nil, err
	}
	set, err := o.ancestors(h)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(set))
	for c := range set {
		out[c.String()] = true
	}
	return out, nil
}

func (o *historyReader) ancestors(h plumbing.Hash) (map[plumbing.Hash]bool, error) {
	set := map[plumbing.Hash]bool{}
	err := o.walk(h, nil, func(c *Commit, _ []*Commit) (bool, error) {
		ch, _ := parseFullHash(c.Hash)
		set[ch] = true
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", h, err)
	}
	return set, nil
}

// MergeBase returns the best common ancestor of the commits a and b name,
// as git merge-base does: a common ancestor that is not an ancestor of
// another common ancestor; of several (a criss-cross merge), the one with
// the newest committer time. The error wraps ErrNoMergeBase when the two
// share no history, and ErrUnknownRevision when either names no commit.
func (r *Repo) MergeBase(a, b string) (string, error) {
	o := r.openObjects()
	defer o.close()
	ha, err := o.resolve(a)
	if err != nil {
		return "", err
	}
	hb, err := o.resolve(b)
	if err != nil {
		return "", err
	}
	inA, err := o.ancestors(ha)
	if err != nil {
		return "", err
	}
	if inA[hb] {
		return hb.String(), nil
	}
	// Walk b's history up to a's: the first commits met that a also
	// reaches are the candidates.
	var candidates []plumbing.Hash
	err = o.walk(hb, func(hash string) bool {
		h, _ := parseFullHash(hash)
		if inA[h] && !slices.Contains(candidates, h) {
			candidates = append(candidates, h)
		}
		return inA[h]
	}, func(*Commit, []*Commit) (bool, error) { return false, nil })
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(candidates) == 0 {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, ErrNoMergeBase)
	}
	// A candidate another candidate reaches is not the best.
	best := slices.Clone(candidates)
	if len(candidates) > 1 {
		for _, c := range candidates {
			anc, err := o.ancestors(c)
			if err != nil {
				return "", err
			}
			best = slices.DeleteFunc(best, func(x plumbing.Hash) bool { return x != c && anc[x] })
		}
	}
	var pick *Commit
	for _, h := range best {
		c, err := o.readCommit(h)
		if err != nil {
			return "", err
		}
		if pick == nil || c.Committer.When.After(pick.Committer.When) {
			pick = c
		}
	}
	return pick.Hash, nil
}

// DefaultBranch returns the name of the branch pull requests are usually
// based on: the one origin/HEAD points to, else main, else master, else
// origin/main or origin/master. The name is one Resolve accepts. The error
// wraps ErrNoDefaultBranch when there is none of them.
func (r *Repo) DefaultBranch() (string, error) {
	o := r.openObjects()
	defer o.close()
	if ref, err := r.storage.Reference("refs/remotes/origin/HEAD"); err == nil && ref.Type() == plumbing.SymbolicReference {
		if _, err := o.resolveRef(ref.Target().String()); err == nil {
			return ref.Target().Short(), nil
		}
	}
	for _, name := range []string{"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"} {
		if _, err := o.resolveRef(name); err == nil {
			return plumbing.ReferenceName(name).Short(), nil
		}
	}
	return "", fmt.Errorf("%w: there is no origin/HEAD, main or master branch", ErrNoDefaultBranch)
}
