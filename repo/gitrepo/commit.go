package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// Commit makes a commit of a few paths on top of HEAD without touching the
// rest of the index, as td's auto git mode needs: the user's staged and
// unstaged changes stay as they were and are not part of the commit.
//
// The commit's tree is HEAD's tree with only the given paths replaced or
// removed: the trees on the way to them are rebuilt and every other entry is
// kept by object name, so the cost grows with the size of the directories
// holding the paths, not with the size of the work tree. The branch is
// moved as git moves it: under refs/heads/<branch>.lock, after checking
// that it still points where the commit was built (a compare-and-swap), with
// a line appended to its reflog.

// CommitRequest is a commit of some work tree paths on top of HEAD.
type CommitRequest struct {
	// Paths are committed with their content on disk, relative to Root
	// (slash or OS separators); a path whose file is missing is removed.
	Paths     []string
	Message   string // the whole message; a final newline is added when missing
	Author    Signature
	Committer Signature
	// Contents, by path as in Paths, is what the caller wrote to a file:
	// the commit records it even when the file on disk has changed since
	// (a checkout swapped it), and the index then marks the entry for
	// git to look at again. Paths missing from it are read from disk.
	Contents map[string][]byte
	// Since, when set, is HEAD as the caller saw it before writing: the
	// commit is made only if HEAD still names the same branch and has not
	// been checked out elsewhere and back since.
	Since *HeadState
}

// CommitResult says what Commit did.
type CommitResult struct {
	Hash   string // the new commit; "" when HEAD already had the paths' content
	Parent string // the commit it was made on; "" for a root commit
	Ref    string // the reference moved: refs/heads/<branch>, or HEAD when detached
	// Staged reports that the index records the paths' content, as Stage
	// leaves it; it is true after a refused commit too, when the index
	// could be written. Blobs are then what it recorded, as StageBlobs
	// reports them.
	Staged bool
	Blobs  []StagedBlob
	// Rebuilt reports that the branch moved while the commit was being
	// made, and the commit was made again on the branch's new tip.
	Rebuilt bool
}

// ErrOperationInProgress is wrapped by the error Commit returns while git is
// in the middle of a merge, rebase, cherry-pick or revert: a commit then
// belongs to the person concluding it.
var ErrOperationInProgress = errors.New("a git operation is in progress")

// inProgressError names the operation and the file that shows it.
type inProgressError struct{ what, marker string }

func (e *inProgressError) Error() string {
	return e.what + " is in progress (" + e.marker + " exists)"
}

func (e *inProgressError) Is(target error) bool { return target == ErrOperationInProgress }

// Commit records the content of req.Paths in the index, as Stage does, and
// commits them on top of HEAD with nothing else: the commit's tree is HEAD's
// with those paths replaced. A branch that moves meanwhile (a concurrent
// update-ref) is detected under the branch's lock and the commit is made
// again on its new tip, so nothing is lost. On a branch without commits the
// commit is a root commit; on a detached HEAD, HEAD moves. When HEAD already
// has the paths' content no commit is made.
//
// The writes come in the order that leaves git's own view consistent
// whatever step a crash interrupts: the objects first (a crash leaves
// unreachable objects, which git gc prunes); then the new index, written
// and synced into index.lock, which stays held; then the branch's lock is
// taken and the index renamed into place (a crash leaves td's files staged
// on the old tip, as git mode stage leaves them, and at most a stale lock
// td's next run removes); then the branch moves. The branch never points to
// a commit the index does not agree with, so the person's next commit
// cannot silently undo td's.
//
// During a merge, rebase, cherry-pick or revert the paths are staged but not
// committed, and the error wraps ErrOperationInProgress. When req.Since is
// set and HEAD left the branch it names, nothing is staged or committed and
// the error wraps ErrHeadMoved. Any other error leaves CommitResult.Staged
// saying whether the index was written; errors do not repeat the paths,
// which the caller knows.
func (r *Repo) Commit(req CommitRequest) (CommitResult, error) {
	return r.commit(req, commitHooks{})
}

// commitHooks are called between the steps of a commit, so that tests can
// move the branch or end the process there; nil ones are skipped.
type commitHooks struct {
	afterObjects    func() // the blobs, trees and commit are written
	afterIndexWrite func() // index.lock holds the new index; nothing renamed
	afterRefLock    func() // the branch's lock is held too
	afterIndexMove  func() // the index is in place; the branch has not moved
	afterRefMove    func() // the branch has moved; the reflog is not written
}

func call(f func()) {
	if f != nil {
		f()
	}
}

// commit is Commit with hooks between its steps.
func (r *Repo) commit(req CommitRequest, hooks commitHooks) (res CommitResult, err error) {
	if len(req.Paths) == 0 {
		return res, nil
	}
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	defer r.locks.beginWrite()()
	if req.Since != nil {
		if err := r.checkHead(*req.Since); err != nil {
			return res, err
		}
	}
	changes, err := r.prepareChanges(req.Paths)
	if err != nil {
		return res, err
	}
	if err := r.useWrittenContent(changes, req.Contents); err != nil {
		return res, err
	}
	ilock, index, err := r.patchedIndex(changes, patchIndex)
	if err != nil {
		return res, err
	}
	defer index.done() // last: the deferred index write below reads it
	defer ilock.release()
	// Unless HEAD left the branch, the index is written whatever becomes of
	// the commit: td's files are then at least staged, as in git mode
	// stage.
	keepIndex, indexWritten := true, false
	defer func() {
		if !keepIndex || res.Staged {
			return
		}
		if index != nil {
			werr := error(nil)
			if !indexWritten {
				werr = ilock.writeParts(index.parts)
			}
			if werr == nil {
				werr = ilock.rename()
			}
			if werr != nil {
				if err == nil {
					err = fmt.Errorf("the commit was made, but the index could not be updated: %w", werr)
				}
				return
			}
		}
		res.Staged, res.Blobs = true, r.stagedBlobs(changes)
	}()

	if e := r.operationInProgress(); e != nil {
		return res, e
	}
	ref, err := r.headRef()
	if err != nil {
		return res, err
	}
	res.Ref = ref
	if req.Since != nil && ref != req.Since.Ref {
		keepIndex = false
		return res, &headMovedError{from: req.Since.Ref, to: ref}
	}
	tip, err := r.refValue(ref)
	if err != nil {
		return res, err
	}
	o := r.lockedObjects()
	defer o.closeFiles()
	b := &commitBuilder{r: r, o: o, changes: changes, req: req}
	made, err := b.build(tip)
	if err != nil {
		return res, missingTip(ref, tip, err)
	}
	call(hooks.afterObjects)
	if index != nil {
		if err := ilock.writeParts(index.parts); err != nil {
			keepIndex = false
			return res, err
		}
		indexWritten = true
	}
	call(hooks.afterIndexWrite)

	rlock, err := r.acquireLock(r.refPath(ref))
	if err != nil {
		return res, err
	}
	defer rlock.release()
	if again, err := r.headRef(); err != nil || again != ref {
		keepIndex = false
		return res, &headMovedError{from: ref, to: again}
	}
	if req.Since != nil {
		if err := r.checkHead(*req.Since); err != nil {
			keepIndex = false
			return res, err
		}
	}
	cur, err := r.refValue(ref)
	if err != nil {
		return res, err
	}
	if cur != tip {
		// Another writer moved the branch between the first read and the
		// lock; under the lock it cannot move again.
		res.Rebuilt, tip = true, cur
		if made, err = b.build(tip); err != nil {
			return res, missingTip(ref, tip, err)
		}
	}
	call(hooks.afterRefLock)
	// The index first: should the process end before the branch moves,
	// td's files are staged on the old tip, which git shows as changes
	// to commit, never as a commit undone.
	if index != nil {
		if err := ilock.rename(); err != nil {
			keepIndex = false
			return res, fmt.Errorf("update the index: %w", err)
		}
	}
	res.Staged, res.Blobs = true, r.stagedBlobs(changes)
	call(hooks.afterIndexMove)
	if made.IsZero() {
		return res, nil
	}
	if err := rlock.commit([]byte(made.String() + "\n")); err != nil {
		return res, err
	}
	call(hooks.afterRefMove)
	res.Hash = made.String()
	if !tip.IsZero() {
		res.Parent = tip.String()
	}
	r.appendReflogs(ref, tip, made, req.Committer, reflogMessage(req.Message, tip.IsZero()))
	return res, nil
}

// ErrMissingTip is wrapped by the error Commit returns when the branch
// points to a commit the object store does not have.
var ErrMissingTip = errors.New("the branch's commit is missing")

// missingTip explains a branch whose commit (or its tree) is missing from
// the object store, which a git gc --prune=now run beside another writer
// leaves: git documents --prune=now as unsafe while other processes write.
// Other errors are returned as they are.
func missingTip(ref string, tip plumbing.Hash, err error) error {
	if !errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, ErrUnknownRevision) {
		return err
	}
	return &missingTipError{ref: shortRef(ref), tip: tip.String()[:12]}
}

type missingTipError struct{ ref, tip string }

func (e *missingTipError) Error() string {
	return fmt.Sprintf("%s points to %s, which is missing from .git/objects: git gc --prune=now, which git says is unsafe while other processes write, probably pruned it; point the branch at an earlier commit from git reflog %s", e.ref, e.tip, e.ref)
}

func (e *missingTipError) Is(target error) bool { return target == ErrMissingTip }

// commitBuilder writes the trees and the commit object of one Commit call.
type commitBuilder struct {
	r       *Repo
	o       *historyReader
	changes []*change
	req     CommitRequest
}

// build writes the commit of the changes on top of parent (zero for a root
// commit) and returns its name, or the zero hash when the tree would be the
// parent's.
func (b *commitBuilder) build(parent plumbing.Hash) (plumbing.Hash, error) {
	var base plumbing.Hash
	if !parent.IsZero() {
		c, err := b.o.readCommit(parent)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		base = c.tree
	}
	edits := make([]treeEdit, len(b.changes))
	for i, c := range b.changes {
		edits[i] = treeEdit{rest: c.path, c: c}
	}
	tree, empty, err := b.tree(base, edits, 0)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if tree == base && !base.IsZero() || empty && parent.IsZero() {
		return plumbing.ZeroHash, nil
	}
	if empty {
		if tree, err = b.r.writeLooseObject(plumbing.TreeObject, nil); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write the empty tree: %w", err)
		}
	}
	h, err := b.r.writeLooseObject(plumbing.CommitObject, commitObject(tree, parent, b.req))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write the commit object: %w", err)
	}
	return h, nil
}

// treeEdit is a change seen from inside a tree: rest is its path below it.
type treeEdit struct {
	rest string
	c    *change
}

// editGroup gathers the edits of one entry of a tree: the file itself, or
// the paths below it when it is a directory.
type editGroup struct {
	name  string
	file  *change
	below []treeEdit
	base  rawEntry // the entry the tree had under this name
	had   bool
}

// maxCommitDepth bounds the directory depth of a committed path.
const maxCommitDepth = 256

// tree returns the name of the tree base (zero for none) with edits
// applied, and whether that tree is empty (then nothing is written). Entries
// no edit touches are copied as they are, by object name, and a tree left
// unchanged is not written again.
func (b *commitBuilder) tree(base plumbing.Hash, edits []treeEdit, depth int) (plumbing.Hash, bool, error) {
	if depth > maxCommitDepth {
		return plumbing.ZeroHash, false, errors.New("a path is nested too deeply")
	}
	var data []byte
	if !base.IsZero() {
		typ, d, err := b.o.read(base)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if typ != plumbing.TreeObject {
			return plumbing.ZeroHash, false, fmt.Errorf("object %s is a %s, not a tree", base, typ)
		}
		data = d
	}
	var groups []*editGroup
	byName := map[string]*editGroup{}
	for _, e := range edits {
		name, rest, more := strings.Cut(e.rest, "/")
		g := byName[name]
		if g == nil {
			g = &editGroup{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		if more {
			g.below = append(g.below, treeEdit{rest: rest, c: e.c})
		} else {
			g.file = e.c
		}
	}
	kept := make([]rawEntry, 0, len(data)/40)
	for rest := data; len(rest) > 0; {
		e, next, err := nextRawEntry(rest)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s: %w", base, err)
		}
		if g := byName[string(e.name)]; g != nil {
			g.base, g.had = e, true
		} else {
			kept = append(kept, e)
		}
		rest = next
	}
	var added []rawEntry
	for _, g := range groups {
		e, ok, err := b.entry(g, depth)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if ok {
			added = append(added, e)
		}
	}
	slices.SortFunc(added, compareEntryNames)
	out := make([]byte, 0, len(data)+len(added)*64)
	i := 0
	for _, e := range kept {
		for ; i < len(added) && compareEntryNames(added[i], e) < 0; i++ {
			out = append(out, added[i].whole...)
		}
		out = append(out, e.whole...)
	}
	for ; i < len(added); i++ {
		out = append(out, added[i].whole...)
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	if bytes.Equal(out, data) {
		return base, false, nil
	}
	h, err := b.r.writeLooseObject(plumbing.TreeObject, out)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("write a tree: %w", err)
	}
	return h, false, nil
}

// entry returns what the tree holds under g's name once g's edits are
// applied, and false when it holds nothing. What is on disk decides: a file
// replaces a directory of the same name and the other way round, while a
// removal only removes the kind of entry it names.
func (b *commitBuilder) entry(g *editGroup, depth int) (rawEntry, bool, error) {
	if g.file != nil && !g.file.remove {
		return newRawEntry(g.file.indexMode(b.r.trustExecBit), g.name, g.file.hash), true, nil
	}
	if len(g.below) == 0 {
		// A file removed: a directory of that name stays.
		return g.base, g.had && g.base.dir, nil
	}
	var sub plumbing.Hash
	if g.had && g.base.dir {
		sub = entryHash(g.base)
	}
	h, empty, err := b.tree(sub, g.below, depth+1)
	if err != nil {
		return rawEntry{}, false, err
	}
	if empty {
		// Everything below was removed: a file of that name stays.
		return g.base, g.had && !g.base.dir, nil
	}
	return newRawEntry(modeTree, g.name, h), true, nil
}

// reflogMessage is the reflog's account of a commit, as git commit writes
// it: "commit: <subject>", or "commit (initial): <subject>" for a root commit.
func reflogMessage(msg string, initial bool) string {
	subject, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	if initial {
		return "commit (initial): " + subject
	}
	return "commit: " + subject
}

// writeLooseObject stores a tree or commit as a loose object the way git
// does (zlib over "<type> <size>\0<content>", written to a temporary file
// in its objects/xx directory and renamed), unless the object exists. The
// zlib stream stores the content uncompressed: go-git's storage compresses
// at zlib's default level, which for the 400 KB tree of a 10,000-issue
// directory takes about 28 ms, more than a whole td mutation may, and
// inflating it again on the next commit costs a few more; stored, the tree
// is 15% larger until git gc packs it, and writing and reading it cost
// well under a millisecond.
func (r *Repo) writeLooseObject(typ plumbing.ObjectType, content []byte) ([hashLen]byte, error) {
	return r.writeLooseObjectZ(typ, content, false)
}

// processID is this process's ID, as temporary object names carry it.
var processID = strconv.Itoa(os.Getpid())

// writeLooseObjectZ is writeLooseObject, compressing the content at
// blobLevel if compress is set and storing it otherwise. The
// temporary file's name carries the process ID, so that the files of a td
// process that was killed can be swept without touching a live writer's.
func (r *Repo) writeLooseObjectZ(typ plumbing.ObjectType, content []byte, compress bool) ([hashLen]byte, error) {
	header := typ.String() + " " + strconv.Itoa(len(content)) + "\x00"
	sum := sha1.New()
	sum.Write([]byte(header))
	sum.Write(content)
	var h [hashLen]byte
	sum.Sum(h[:0])
	name := hex.EncodeToString(h[:])
	dir := filepath.Join(r.commonDir, "objects", name[:2])
	final := filepath.Join(dir, name[2:])
	if _, err := os.Stat(final); err == nil {
		return h, nil
	}
	if !r.knownObjectDir(dir) {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return h, err
		}
	}
	// Created read-only, as git leaves objects, so that no chmod follows:
	// staging thousands of files (an import) writes thousands of objects.
	// The name's random part needs no system call (math/rand/v2 is seeded
	// once per process), nor does the process ID, read once.
	f, err := OpenFile(filepath.Join(dir, tempObjectPrefix+processID+"_"+strconv.FormatUint(rand.Uint64(), 16)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return h, err
	}
	if compress {
		err = r.writeZlib(f, []byte(header), content)
	} else {
		err = writeStoredZlib(f, []byte(header), content)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		// Only a file that was not renamed is left to remove: removing
		// after every write cost two failed system calls an object.
		os.Remove(f.Name())
	}
	return h, err
}

// writeZlib compresses parts, in order, as one zlib stream at blobLevel,
// with a writer the Repo reuses.
func (r *Repo) writeZlib(w io.Writer, parts ...[]byte) error {
	pool := &r.blobWriters
	zw, err := pool.get(w)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := zw.Write(p); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	pool.put(zw)
	return nil
}

// knownObjectDir reports whether dir, an objects/xx directory, was seen
// to exist by this Repo, and remembers it: a directory of objects is
// never removed while td runs.
func (r *Repo) knownObjectDir(dir string) bool {
	if _, ok := r.objectDirs.Load(dir); ok {
		return true
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		r.objectDirs.Store(dir, true)
		return true
	}
	return false
}

// operationInProgress reports a merge, rebase, cherry-pick or revert that
// git has stopped in the middle of, by the files git leaves for it.
func (r *Repo) operationInProgress() error {
	for _, m := range []struct{ name, what string }{
		{"MERGE_HEAD", "a merge"},
		{"rebase-merge", "a rebase"},
		{"rebase-apply", "a rebase or git am"},
		{"CHERRY_PICK_HEAD", "a cherry-pick"},
		{"REVERT_HEAD", "a revert"},
	} {
		p := filepath.Join(r.gitDir, m.name)
		if _, err := os.Lstat(p); err == nil {
			marker := p
			if rel, err := filepath.Rel(r.root, p); err == nil && filepath.IsLocal(rel) {
				marker = filepath.ToSlash(rel)
			}
			return &inProgressError{what: m.what, marker: marker}
		}
	}
	return nil
}

// headRef returns the reference a commit moves: the branch HEAD points to
// (refs/heads/<name>), or HEAD itself when it is detached.
func (r *Repo) headRef() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(s, "ref:"); ok {
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "refs/heads/") || !validRevName(target) {
			return "", fmt.Errorf("HEAD points to %s, which is not a branch", target)
		}
		if _, err := os.Stat(filepath.Join(r.commonDir, "reftable")); err == nil {
			return "", errors.New("the repository keeps its references in a reftable, which td cannot update")
		}
		return target, nil
	}
	if _, ok := parseFullHash(s); ok {
		return "HEAD", nil
	}
	return "", fmt.Errorf("HEAD holds %q, neither a branch nor a commit", s)
}

// refPath is the file of a reference: HEAD in the work tree's git directory,
// branches in the repository's shared one.
func (r *Repo) refPath(ref string) string {
	if ref == "HEAD" {
		return filepath.Join(r.gitDir, "HEAD")
	}
	return filepath.Join(r.commonDir, filepath.FromSlash(ref))
}

// refValue reads what a branch (or a detached HEAD) points to, from its
// loose file or else from packed-refs; the zero hash means the branch has
// no commits yet.
func (r *Repo) refValue(ref string) (plumbing.Hash, error) {
	b, err := os.ReadFile(r.refPath(ref))
	switch {
	case err == nil:
		s := strings.TrimSpace(string(b))
		h, ok := parseFullHash(s)
		if !ok {
			return plumbing.ZeroHash, fmt.Errorf("%s holds %q, not a commit", ref, s)
		}
		return h, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", ref, err)
	case ref == "HEAD":
		return plumbing.ZeroHash, errors.New("HEAD is missing")
	}
	packed, err := os.ReadFile(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read packed-refs: %w", err)
	}
	for _, line := range strings.Split(string(packed), "\n") {
		hash, name, ok := strings.Cut(strings.TrimRight(line, "\r"), " ")
		if !ok || name != ref {
			continue
		}
		if h, ok := parseFullHash(hash); ok {
			return h, nil
		}
		return plumbing.ZeroHash, fmt.Errorf("packed-refs holds %q for %s, not a commit", hash, ref)
	}
	return plumbing.ZeroHash, nil
}

// appendReflogs records a move of ref in its reflog and, for a branch, in
// HEAD's, as git does. A reflog is written when it exists already or when
// core.logAllRefUpdates is not false; failing to write one does not undo
// the commit, so it is not an error.
func (r *Repo) appendReflogs(ref string, old, made plumbing.Hash, who Signature, msg string) {
	line := old.String() + " " + made.String() + " " + formatSignature(who) + "\t" + msg + "\n"
	create := true
	switch strings.ToLower(strings.TrimSpace(r.ConfigValue("core", "", "logallrefupdates"))) {
	case "false", "no", "off", "0":
		create = false
	}
	for _, name := range []string{ref, "HEAD"} {
		p := filepath.Join(r.commonDir, "logs", filepath.FromSlash(name))
		if name == "HEAD" {
			p = filepath.Join(r.gitDir, "logs", "HEAD")
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if !create || os.MkdirAll(filepath.Dir(p), 0o777) != nil {
				continue
			}
		}
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666); err == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
		if ref == "HEAD" {
			break
		}
	}
}
