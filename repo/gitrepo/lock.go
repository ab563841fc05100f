package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"
)

// ErrLocked is wrapped by errors returned when git's lock file for the index
// or the config is still held by another process after td waited for it.
var ErrLocked = errors.New("git lock file is held by another process")

// lockWait is how long td waits for another process to release a git lock
// file before giving up.
const lockWait = 2 * time.Second

// lockFile is a git-style lock: target.lock created exclusively, filled with
// the new contents and renamed over target.
type lockFile struct {
	target string
	path   string
	f      *os.File
	done   bool
}

// acquireLock creates target.lock with O_EXCL, as git does, retrying with
// backoff for lockWait while another process holds it.
func acquireLock(target string) (*lockFile, error) {
	path := target + ".lock"
	deadline := time.Now().Add(lockWait)
	backoff := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &lockFile{target: target, path: path, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create lock file: %w", err)
		}
		now := time.Now()
		if !now.Before(deadline) {
			return nil, fmt.Errorf("%w: %s still exists after %v; if no git process is running in this repository, remove the file", ErrLocked, path, lockWait)
		}
		// Jitter keeps waiting processes from retrying in lockstep.
		sleep := backoff/2 + rand.N(backoff)
		if rest := deadline.Sub(now); sleep > rest {
			sleep = rest
		}
		time.Sleep(sleep)
		if backoff < 32*time.Millisecond {
			backoff *= 2
		}
	}
}

// commit writes data to the lock file, syncs it and renames it over the
// target, which releases the lock.
func (l *lockFile) commit(data []byte) error {
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", l.path, err)
	}
	if err := os.Rename(l.path, l.target); err != nil {
		return fmt.Errorf("replace %s: %w", l.target, err)
	}
	l.done = true
	return nil
}

// release removes the lock file unless commit already renamed it. It is safe
// to defer after a successful commit.
func (l *lockFile) release() {
	if l.done {
		return
	}
	l.done = true
	_ = l.f.Close()
	_ = os.Remove(l.path)
}
