package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Stage records the current content of each path in the index, as git add
// does, and removes from the index the paths whose file no longer exists, as
// git add does for a deleted file. Paths are relative to Root, with slash or
// OS separators; an absolute path inside the work tree is accepted too.
// Staging a file with a merge conflict resolves the conflict; an index entry
// marked skip-worktree or intent-to-add becomes an ordinary one.
//
// Each file is written as a loose object through go-git's object storage, then
// .git/index is patched in place under git's index.lock: the cost grows with
// the size of the index file, not with the size of the work tree. Stage waits
// up to two seconds for a lock held by another process and then fails with an
// error wrapping ErrLocked.
func (r *Repo) Stage(paths ...string) error {
	return r.stage(paths, patchIndex)
}

// stage is Stage with the index patcher as a parameter, so that tests and
// benchmarks can run the fallback on its own.
func (r *Repo) stage(paths []string, patch indexPatcher) error {
	if len(paths) == 0 {
		return nil
	}
	// go-git's storage is not safe for concurrent use, so the blobs are
	// written under the lock too.
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	defer r.locks.beginWrite()()
	changes, err := r.prepareChanges(paths)
	if err != nil {
		return fmt.Errorf("stage %s: %w", describePaths(paths), err)
	}
	if err := r.updateIndex(changes, patch); err != nil {
		return fmt.Errorf("stage %s: %w", describePaths(paths), err)
	}
	return nil
}

// indexPatcher turns the index bytes into new ones; patchIndex is the fast
// one, codecIndex the fallback.
type indexPatcher func(data []byte, indexMtime uint32, changes []*change, trustExecBit func() bool) (*indexImage, error)

// updateIndex rewrites the index with changes under index.lock, trying
// patch first and go-git's codec when patch cannot handle the index.
func (r *Repo) updateIndex(changes []*change, patch indexPatcher) error {
	lock, out, err := r.patchedIndex(changes, patch)
	if err != nil {
		return err
	}
	defer lock.release()
	defer out.done()
	if out == nil {
		return nil
	}
	if err := lock.writeParts(out.parts); err != nil {
		return err
	}
	return lock.rename()
}

// patchedIndex takes index.lock and returns it with the index's new content
// (nil when nothing changed), trying patch first and go-git's codec when
// patch cannot handle the index. The caller commits or releases the lock, so
// that a commit can be made while the index cannot move.
func (r *Repo) patchedIndex(changes []*change, patch indexPatcher) (*lockFile, *indexImage, error) {
	path := filepath.Join(r.gitDir, "index")
	lock, err := r.acquireLock(path)
	if err != nil {
		return nil, nil, err
	}
	data, mtime, unmap, err := mapIndexFile(path)
	if err != nil {
		lock.release()
		return nil, nil, err
	}
	kept := false // the image's parts point into data: it unmaps it
	defer func() {
		if !kept {
			unmap()
		}
	}()
	// git syncs the index only when core.fsync names it; so does td. The
	// index of 100,000 issues is some 20 MB, and its sync alone cost more
	// than the rest of a one-issue change.
	lock.noSync = !r.syncIndex()
	out, err := patch(data, mtime, changes, r.trustExecBit)
	if errors.Is(err, errLinkedIndex) {
		// A split index: the change goes into a split index of the same
		// shared one, else into the whole index it stands for.
		resetChanges(changes)
		var v *splitView
		if v, err = openSplit(r.gitDir, data); err == nil {
			out, err = patchSplit(v, mtime, changes, r.trustExecBit)
			if errors.Is(err, errWholeIndex) {
				resetChanges(changes)
				if data, err = v.expand(); err == nil {
					out, err = patch(data, mtime, changes, r.trustExecBit)
				}
			}
			v.close()
		}
	}
	if errors.Is(err, errNeedsCodec) {
		resetChanges(changes)
		out, err = codecIndex(data, mtime, changes, r.trustExecBit)
	}
	if err != nil {
		lock.release()
		return nil, nil, err
	}
	if out != nil {
		out.release, kept = unmap, true
	}
	return lock, out, nil
}

// resetChanges forgets what a patcher learnt of the entries changes
// replace, before another patcher reads the index again.
func resetChanges(changes []*change) {
	for _, c := range changes {
		c.oldMode, c.oldHash, c.replaced, c.oldStage = 0, [hashLen]byte{}, 0, 0
	}
}

// readIndexFile returns the index file's content, nil when there is none,
// and its modification time in seconds. A split index comes back whole,
// merged with its shared index from gitDir (expandSplitIndex).
func readIndexFile(gitDir, path string) ([]byte, uint32, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read index: %w", err)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, 0, fmt.Errorf("read index %s: %w", path, err)
	}
	if data, err = expandSplitIndex(gitDir, data); err != nil {
		return nil, 0, err
	}
	sec, _ := timeParts(fi.ModTime())
	return data, sec, nil
}

// mapIndexFile is readIndexFile for a caller that is done with the bytes
// before it returns: the index is mapped rather than copied, and the
// caller calls unmap once it no longer reads them. A split index comes
// back as it is: the patcher reports it (errLinkedIndex), and
// patchedIndex stages into it as one.
func mapIndexFile(path string) ([]byte, uint32, func(), error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, func() {}, nil
	}
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read index: %w", err)
	}
	data, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read index %s: %w", path, err)
	}
	sec, _ := timeParts(fi.ModTime())
	return data, sec, unmap, nil
}

// readWhole reads size bytes of f into memory, for mapFile where the file
// is not mapped.
func readWhole(f *os.File, size int64) ([]byte, func(), error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// syncIndex reports whether core.fsync, in the repository's configuration,
// asks for the index to be synced when written: git's own rule, where
// "index", "added" or "all" names it, "none" resets the list, and the
// default leaves it out.
func (r *Repo) syncIndex() bool {
	sync := false
	for _, tok := range strings.Split(r.ConfigValue("core", "", "fsync"), ",") {
		switch strings.ToLower(strings.TrimSpace(tok)) {
		case "none":
			sync = false
		case "index", "added", "all":
			sync = true
		}
	}
	return sync
}

// trustExecBit reports core.fileMode, read once per Repo and only when a
// decision depends on it.
func (r *Repo) trustExecBit() bool {
	r.fileModeOnce.Do(func() {
		r.fileMode = true
		switch strings.ToLower(strings.TrimSpace(r.ConfigValue("core", "", "filemode"))) {
		case "false", "no", "off", "0":
			r.fileMode = false
		}
	})
	return r.fileMode
}

// prepareChanges normalises the paths, reads each file and writes its blob.
// The result is sorted by path with duplicates removed.
func (r *Repo) prepareChanges(paths []string) ([]*change, error) {
	changes := make([]*change, 0, len(paths))
	for _, p := range paths {
		rel, err := r.relPath(p)
		if err != nil {
			return nil, err
		}
		changes = append(changes, &change{path: rel})
	}
	slices.SortFunc(changes, func(a, b *change) int { return strings.Compare(a.path, b.path) })
	changes = slices.CompactFunc(changes, func(a, b *change) bool { return a.path == b.path })
	if err := forEachChange(changes, r.readChange); err != nil {
		return nil, err
	}
	return changes, nil
}

// parallelStageAt is how many files make staging read and write blobs
// on several goroutines: the time goes to the file system, which serves
// several at once.
const parallelStageAt = 64

// forEachChange runs fn on every change, on several goroutines when there
// are many, and returns the first error in path order.
func forEachChange(changes []*change, fn func(*change) error) error {
	if len(changes) < parallelStageAt {
		for _, c := range changes {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(changes))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 2*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(changes) {
					return
				}
				errs[i] = fn(changes[i])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readChange fills c from the file at c.path and writes its blob, or marks c
// as a removal when the file does not exist.
func (r *Repo) readChange(c *change) error {
	full := filepath.Join(r.root, filepath.FromSlash(c.path))
	fi, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		c.remove = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", c.path, err)
	}
	var content []byte
	switch {
	case fi.Mode().IsRegular():
		content, fi, err = readRegular(full)
		if err != nil {
			return fmt.Errorf("read %s: %w", c.path, err)
		}
		c.mode = modeFile
		if fi.Mode().Perm()&0o100 != 0 {
			c.mode = modeExec
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(full)
		if err != nil {
			return fmt.Errorf("read %s: %w", c.path, err)
		}
		content = []byte(target)
		c.mode = modeSymlink
	case fi.IsDir():
		return fmt.Errorf("%s is a directory, and only files can be staged", c.path)
	default:
		return fmt.Errorf("%s is not a regular file or a symbolic link", c.path)
	}
	c.stat = statFromFileInfo(fi)
	c.hash, err = r.writeBlob(content)
	if err != nil {
		return fmt.Errorf("write the blob of %s: %w", c.path, err)
	}
	return nil
}

// readRegular reads a regular file and returns the stat data of the open
// file taken before reading, so that a later change is never hidden behind
// stat data newer than the recorded content.
func readRegular(full string) ([]byte, fs.FileInfo, error) {
	f, err := OpenFile(full, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, errors.New("it stopped being a regular file while being read")
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + 1)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), fi, nil
}

// writeBlob stores content as a loose blob object, as git add does, and
// returns its name. td writes it itself rather than through go-git's
// storage so that the temporary file carries td's process ID and can be
// swept if the process is killed while writing it. A blob under storeBelow
// is stored uncompressed (see zlib.go).
func (r *Repo) writeBlob(content []byte) ([hashLen]byte, error) {
	return r.writeLooseObjectZ(plumbing.BlobObject, content, len(content) >= storeBelow)
}

// relPath turns a path given to Stage into the slash-separated path relative
// to the work tree root that the index uses, refusing paths outside the work
// tree and inside .git.
func (r *Repo) relPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("an empty path cannot be staged")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		rel, err := filepath.Rel(r.root, native)
		if err != nil || !filepath.IsLocal(rel) {
			if real, err2 := filepath.EvalSymlinks(r.root); err2 == nil {
				rel, err = filepath.Rel(real, native)
			}
		}
		if err != nil || !filepath.IsLocal(rel) {
			return "", fmt.Errorf("%s is outside the work tree %s", p, r.root)
		}
		native = rel
	}
	if !filepath.IsLocal(native) {
		return "", fmt.Errorf("%s is outside the work tree %s", p, r.root)
	}
	rel := filepath.ToSlash(filepath.Clean(native))
	for _, part := range strings.Split(rel, "/") {
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("%s is inside a .git directory", p)
		}
	}
	return rel, nil
}

// describePaths names the paths of a Stage call for an error message.
func describePaths(paths []string) string {
	switch len(paths) {
	case 1:
		return paths[0]
	case 2:
		return paths[0] + " and 1 more path"
	}
	return fmt.Sprintf("%s and %d more paths", paths[0], len(paths)-1)
}

// codecIndex applies changes through go-git's index decoder and encoder. It
// handles what patchIndex does not (version 4, skip-worktree and
// intent-to-add entries) at the cost of decoding every entry; go-git's
// encoder writes no extensions, so the cache tree and resolve-undo data are
// dropped, which git accepts.
func codecIndex(data []byte, _ uint32, changes []*change, trustExecBit func() bool) (*indexImage, error) {
	idx := &index.Index{Version: 2}
	if data != nil {
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
			if errors.Is(err, index.ErrUnknownExtension) {
				return nil, fmt.Errorf("the index uses a git extension td cannot update, such as a sparse index: %w", err)
			}
			return nil, fmt.Errorf("read index: %w", err)
		}
	}
	byPath := make(map[string]*change, len(changes))
	for _, c := range changes {
		byPath[c.path] = c
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if c := byPath[e.Name]; c != nil {
			c.noteReplaced(uint32(e.Mode), e.Hash[:], int(e.Stage))
			continue
		}
		if slices.ContainsFunc(changes, func(c *change) bool { return c.conflictsWith([]byte(e.Name)) }) {
			continue
		}
		kept = append(kept, e)
	}
	for _, c := range changes {
		if c.remove {
			continue
		}
		s := &c.stat
		kept = append(kept, &index.Entry{
			Hash:       plumbing.Hash(c.hash),
			Name:       c.path,
			CreatedAt:  unixTime(s.ctimeSec, s.ctimeNsec),
			ModifiedAt: unixTime(s.mtimeSec, s.mtimeNsec),
			Dev:        s.dev,
			Inode:      s.ino,
			Mode:       filemode.FileMode(c.indexMode(trustExecBit)),
			UID:        s.uid,
			GID:        s.gid,
			Size:       s.size,
		})
	}
	slices.SortStableFunc(kept, func(a, b *index.Entry) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return int(a.Stage) - int(b.Stage)
	})
	if idx.Version < 2 {
		idx.Version = 2
	}
	idx.Entries = kept
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return nil, fmt.Errorf("write index: %w", err)
	}
	return wholeImage(buf.Bytes()), nil
}

func unixTime(sec, nsec uint32) time.Time {
	if sec == 0 && nsec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(sec), int64(nsec))
}
