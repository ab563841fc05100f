package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrHeadMoved is wrapped by the error Commit returns when HEAD left the
// branch the caller saw before writing (CommitRequest.Since): a checkout
// happened meanwhile, so the files on disk may be another branch's and
// nothing is staged or committed.
var ErrHeadMoved = errors.New("HEAD moved to another branch")

// headMovedError names where HEAD was and where it went.
type headMovedError struct{ from, to string }

func (e *headMovedError) Error() string {
	switch {
	case e.to == "" || e.to == e.from:
		return fmt.Sprintf("HEAD was checked out away from %s and back while td was writing", shortRef(e.from))
	default:
		return fmt.Sprintf("HEAD moved from %s to %s while td was writing", shortRef(e.from), shortRef(e.to))
	}
}

func (e *headMovedError) Is(target error) bool { return target == ErrHeadMoved }

// shortRef is a reference as git names it to people: main, not
// refs/heads/main.
func shortRef(ref string) string {
	if len(ref) > len("refs/heads/") && ref[:len("refs/heads/")] == "refs/heads/" {
		return ref[len("refs/heads/"):]
	}
	return ref
}

// HeadState is HEAD as seen at one moment: the reference a commit would
// move and how long HEAD's reflog was, so that a checkout elsewhere and
// back can be told from no checkout at all.
type HeadState struct {
	Ref     string // refs/heads/<branch>, or HEAD when detached
	logSize int64  // size of logs/HEAD; -1 when there is none
	// index is the index file as it was (size and modification time),
	// zero when there was none: git checkout writes the index before
	// HEAD, so a changed index is a checkout that may not have moved
	// HEAD yet.
	index indexStamp
}

// indexStamp identifies one version of the index file.
type indexStamp struct {
	size  int64
	mtime int64
}

func (r *Repo) indexStamp() indexStamp {
	fi, err := os.Stat(filepath.Join(r.gitDir, "index"))
	if err != nil {
		return indexStamp{}
	}
	return indexStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// Head reads HEAD's state, for CommitRequest.Since.
func (r *Repo) Head() (HeadState, error) {
	ref, err := r.headRef()
	if err != nil {
		return HeadState{}, err
	}
	st := HeadState{Ref: ref, logSize: -1, index: r.indexStamp()}
	if fi, err := os.Stat(r.headLog()); err == nil {
		st.logSize = fi.Size()
	}
	return st, nil
}

func (r *Repo) headLog() string { return filepath.Join(r.gitDir, "logs", "HEAD") }

// checkHead fails with an error wrapping ErrHeadMoved when HEAD no longer
// names since.Ref, or when HEAD's reflog recorded a checkout after since
// was read (git checkout and git switch write "checkout: moving from ...").
func (r *Repo) checkHead(since HeadState) error {
	ref, err := r.headRef()
	if err != nil {
		return err
	}
	if ref != since.Ref {
		return &headMovedError{from: since.Ref, to: ref}
	}
	if since.logSize < 0 {
		return nil
	}
	f, err := os.Open(r.headLog())
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= since.logSize {
		// Unchanged, or shortened by reflog expire: nothing to read.
		return nil
	}
	tail, err := io.ReadAll(io.NewSectionReader(f, since.logSize, min(fi.Size()-since.logSize, 1<<20)))
	if err != nil {
		return nil
	}
	if bytes.Contains(tail, []byte("\tcheckout: ")) {
		return &headMovedError{from: since.Ref, to: ref}
	}
	return nil
}

// checkoutSettle is how long CheckHead waits, when the index changed
// under a caller, for a checkout that wrote it to move HEAD too: git
// checkout writes the index, then HEAD, one step after the other.
var checkoutSettle = 50 * time.Millisecond

// CheckHead fails with an error wrapping ErrHeadMoved when HEAD left
// since's branch, or was checked out away and back, after since was read:
// what the caller read may be another branch's, and nothing it wrote may
// be staged. When the index changed meanwhile (a checkout writes it just
// before HEAD, or the user staged something) it looks again once a
// checkout would have moved HEAD.
func (r *Repo) CheckHead(since HeadState) error {
	if err := r.checkHead(since); err != nil || r.indexStamp() == since.index {
		return err
	}
	time.Sleep(checkoutSettle)
	return r.checkHead(since)
}

// useWrittenContent makes each change whose path the caller wrote record
// the caller's content: a file that a checkout replaced or removed since
// is committed as td wrote it, with no stat data in the index, so that git
// compares the file again.
func (r *Repo) useWrittenContent(changes []*change, contents map[string][]byte) error {
	if len(contents) == 0 {
		return nil
	}
	byPath := make(map[string][]byte, len(contents))
	for p, data := range contents {
		rel, err := r.relPath(p)
		if err != nil {
			return err
		}
		byPath[rel] = data
	}
	for _, c := range changes {
		data, ok := byPath[c.path]
		if !ok {
			continue
		}
		want := plumbing.ComputeHash(plumbing.BlobObject, data)
		if !c.remove && c.mode != modeSymlink && [hashLen]byte(want) == c.hash {
			continue
		}
		h, err := r.writeBlob(data)
		if err != nil {
			return fmt.Errorf("write the blob of %s: %w", c.path, err)
		}
		if c.remove || c.mode == modeSymlink {
			c.mode = modeFile
		}
		c.remove, c.hash, c.stat = false, h, statData{}
	}
	return nil
}
