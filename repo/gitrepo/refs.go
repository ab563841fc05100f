package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// References outside refs/heads: td's claims (refs/td/claims/<issue>) and
// what td last saw of a remote's (refs/td/remote-claims/<remote>/<issue>).
// They live in the common directory, so every linked work tree of a
// clone sees one set at once. A reference is read from its loose file or
// else from packed-refs, as git reads it, and moved only under git's own
// lock on it (<ref>.lock), with compare-and-swap: the object first, then
// the lock, the check of the old value, the new value synced into the
// lock file and renamed over the reference. A process killed at any step
// leaves the reference old or new, never torn, and at most an object
// nothing names, which git gc collects.

// ErrRefMoved is wrapped by the error UpdateRef returns when the
// reference no longer holds the value the caller expected.
var ErrRefMoved = errors.New("the reference moved")

// Ref is a reference and the object it names.
type Ref struct {
	Name string // full name: refs/td/claims/td-k3x9qa
	Hash string // full hexadecimal object name
}

// checkRefName refuses a name that is not a full reference under refs/.
func checkRefName(name string) error {
	if !strings.HasPrefix(name, "refs/") || !validRevName(name) {
		return fmt.Errorf("%q is not a valid reference name", name)
	}
	return nil
}

// ReadRef returns the object name a reference holds, "" when there is no
// such reference.
func (r *Repo) ReadRef(name string) (string, error) {
	if err := checkRefName(name); err != nil {
		return "", err
	}
	h, err := r.refValue(name)
	if err != nil || h.IsZero() {
		return "", err
	}
	return h.String(), nil
}

// Refs lists the references whose names start with prefix (which ends in
// a slash, as refs/td/claims/ does), sorted by name: the loose files under
// the common directory and the lines of packed-refs, a loose file winning
// over a packed line as in git.
func (r *Repo) Refs(prefix string) ([]Ref, error) {
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("%q is not a reference prefix", prefix)
	}
	found := map[string]string{}
	if err := r.packedRefs(prefix, func(name, hash string) { found[name] = hash }); err != nil {
		return nil, err
	}
	root := filepath.Join(r.commonDir, filepath.FromSlash(prefix))
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		names = append(names, prefix+filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	// Hundreds of small files: read them on every core.
	hashes := make([]string, len(names))
	errs := make([]error, len(names))
	inParallel(len(names), func(i int) {
		b, err := os.ReadFile(filepath.Join(r.commonDir, filepath.FromSlash(names[i])))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // deleted while listing
				errs[i] = err
			}
			return
		}
		if h, ok := parseFullHash(strings.TrimSpace(string(b))); ok && validRevName(names[i]) {
			hashes[i] = h.String()
		}
	})
	for i, name := range names {
		if errs[i] != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, errs[i])
		}
		if hashes[i] != "" {
			found[name] = hashes[i] // not a reference git would read either when ""
		}
	}
	refs := make([]Ref, 0, len(found))
	for name, hash := range found {
		refs = append(refs, Ref{Name: name, Hash: hash})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	return refs, nil
}

// packedRefs calls fn for every line of packed-refs naming a reference
// under prefix.
func (r *Repo) packedRefs(prefix string, fn func(name, hash string)) error {
	f, err := os.Open(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		hash, name, ok := strings.Cut(strings.TrimRight(sc.Text(), "\r"), " ")
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		if h, ok := parseFullHash(hash); ok {
			fn(name, h.String())
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	return nil
}

// UpdateRef moves the reference name from old to new with
// compare-and-swap: "" for old means the reference must not exist, ""
// for new deletes it. The object new names must be written first. When
// the reference holds anything but old the error wraps ErrRefMoved and
// nothing changes.
func (r *Repo) UpdateRef(name, old, new string) error {
	if err := checkRefName(name); err != nil {
		return err
	}
	var oldHash, newHash plumbing.Hash
	for _, v := range []struct {
		s string
		h *plumbing.Hash
	}{{old, &oldHash}, {new, &newHash}} {
		if v.s == "" {
			continue
		}
		h, ok := parseFullHash(v.s)
		if !ok {
			return fmt.Errorf("update %s: %q is not a full object name", name, v.s)
		}
		*v.h = h
	}
	defer r.locks.beginWrite()()
	path := r.refPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	lock, err := r.acquireLock(path)
	if err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	defer lock.release()
	cur, err := r.refValue(name)
	if err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	if cur != oldHash {
		return fmt.Errorf("update %s: %w: it holds %s, not %s", name, ErrRefMoved, describeHash(cur), describeHash(oldHash))
	}
	if !newHash.IsZero() {
		if err := lock.commit([]byte(newHash.String() + "\n")); err != nil {
			return fmt.Errorf("update %s: %w", name, err)
		}
		return nil
	}
	if cur.IsZero() {
		return nil
	}
	// Deleting: the packed line first, under packed-refs' own lock, then
	// the loose file, as git does; the reference's lock is held
	// throughout, so nobody sees it come back from packed-refs.
	if err := r.unpackRef(name); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}

// unpackRef rewrites packed-refs without name (and the peeled line after
// it), when it lists name.
func (r *Repo) unpackRef(name string) error {
	packed := filepath.Join(r.commonDir, "packed-refs")
	data, err := os.ReadFile(packed)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(" "+name+"\n")) && !bytes.HasSuffix(data, []byte(" "+name)) {
		return nil
	}
	lock, err := r.acquireLock(packed)
	if err != nil {
		return err
	}
	defer lock.release()
	if data, err = os.ReadFile(packed); err != nil {
		return err
	}
	var out bytes.Buffer
	skipPeeled := false
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if skipPeeled && line[0] == '^' {
			continue
		}
		skipPeeled = false
		_, n, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(" "))
		if ok && string(n) == name {
			skipPeeled = true
			continue
		}
		out.Write(line)
	}
	return lock.commit(out.Bytes())
}

func describeHash(h plumbing.Hash) string {
	if h.IsZero() {
		return "nothing"
	}
	return h.String()[:12]
}

// WriteRecordCommit writes a commit with no parent and the empty tree whose
// message is a record (a claim), and returns its name: a commit, not a
// bare blob, so that every git host and tool accepts a reference to it
// and git log shows the record.
func (r *Repo) WriteRecordCommit(message string, author, committer Signature) (string, error) {
	defer r.locks.beginWrite()()
	tree, err := r.writeLooseObject(plumbing.TreeObject, nil)
	if err != nil {
		return "", fmt.Errorf("write the empty tree: %w", err)
	}
	h, err := r.writeLooseObject(plumbing.CommitObject, commitObject(tree, plumbing.ZeroHash, CommitRequest{Message: message, Author: author, Committer: committer}))
	if err != nil {
		return "", fmt.Errorf("write a record commit: %w", err)
	}
	return plumbing.Hash(h).String(), nil
}

// Commits decodes the commits with the given full object names: nil in
// the place of a name that is missing or not a commit. Many are read on
// every core, each reader with its own files and pack indexes.
func (r *Repo) Commits(hashes []string) []*Commit { return r.commits(hashes, false) }

// RecentCommits is Commits for commits td wrote lately, such as a claim's:
// each is looked for as a loose object first, where it most likely is,
// before any pack index is read.
func (r *Repo) RecentCommits(hashes []string) []*Commit { return r.commits(hashes, true) }

func (r *Repo) commits(hashes []string, looseFirst bool) []*Commit {
	out := make([]*Commit, len(hashes))
	if len(hashes) == 0 {
		return out
	}
	r.stageMu.Lock()
	indexes := maps.Clone(r.packIndexes)
	r.stageMu.Unlock()
	workers := parallelism(len(hashes))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files := newObjectFiles(filepath.Join(r.commonDir, "objects"), maps.Clone(indexes))
			files.looseFirst = looseFirst
			o := &historyReader{r: r, objects: files}
			defer o.closeFiles()
			for i := w; i < len(hashes); i += workers {
				h, ok := parseFullHash(hashes[i])
				if !ok {
					continue
				}
				if c, err := o.readCommit(h); err == nil {
					out[i] = c
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// parallelMin is how many small reads are worth more than one goroutine.
const parallelMin = 64

// parallelism is how many goroutines n small reads are spread over.
func parallelism(n int) int {
	if n < parallelMin {
		return 1
	}
	return min(4, max(1, runtime.GOMAXPROCS(0)), n/(parallelMin/2))
}

// inParallel calls fn for 0..n-1, over parallelism(n) goroutines.
func inParallel(n int, fn func(i int)) {
	workers := parallelism(n)
	if workers == 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
