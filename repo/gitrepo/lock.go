package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrLocked is wrapped by errors returned when git's lock file for the index
// or the config is still held by another process after td waited for it.
var ErrLocked = errors.New("git lock file is held by another process")

// lockWait is how long td waits for another process to release a git lock
// file before giving up.
const lockWait = 2 * time.Second

// Git's lock files say nothing about who made them, so td keeps its own
// account of the ones it holds: while a td process writes objects or holds
// a lock it keeps a record, <common dir>/td-locks/<pid>, listing each lock
// with the inode, modification time and size td left it with. A process
// killed before it could clean up leaves its record behind; the next td run
// finds the record's process gone and removes exactly the locks that are
// still the files td made (same inode, time and size: a lock git made since
// would differ), and td's temporary object files, with a warning. A lock
// whose record is missing or differs is never touched: it may be git's.
//
// SIGINT, SIGTERM and SIGHUP while td holds a lock remove the locks and
// the record, then end the process by the signal, as git does.

// lockRecordDir is the directory of td's lock records, in the common dir.
const lockRecordDir = "td-locks"

// lockFile is a git-style lock: target.lock created exclusively, filled with
// the new contents and renamed over target.
type lockFile struct {
	set    *lockSet
	target string
	path   string
	f      *os.File
	done   bool
	stamp  fileStamp // what the lock file looked like after td's last write
}

// fileStamp identifies one version of one file: a file made by another
// process, or written since, has another.
type fileStamp struct {
	ino, mtime, size int64
}

func (s fileStamp) String() string {
	return strconv.FormatInt(s.ino, 10) + " " + strconv.FormatInt(s.mtime, 10) + " " + strconv.FormatInt(s.size, 10)
}

// lockSet is the locks one Repo holds, with the record that lets the next
// td run clear them if this process dies holding them. Its mutex also
// orders lock removal against the signal handler.
type lockSet struct {
	mu      sync.Mutex
	dir     string // the common dir
	held    []*lockFile
	writers int // operations writing objects or holding locks
	pid     int
	watch   *signalWatch
	notes   []string // warnings for the caller, taken by TakeWarnings
}

func (s *lockSet) recordPath() string {
	return filepath.Join(s.dir, lockRecordDir, strconv.Itoa(s.pid))
}

// writeRecordLocked rewrites this process's record; s.mu is held. A record
// that cannot be written only means a kill would leave locks the next run
// cannot prove are td's, so failure is not an error.
func (s *lockSet) writeRecordLocked() {
	if s.writers == 0 && len(s.held) == 0 {
		_ = os.Remove(s.recordPath())
		return
	}
	var b strings.Builder
	b.WriteString("td " + strconv.Itoa(s.pid) + "\n")
	for _, l := range s.held {
		b.WriteString("lock " + l.stamp.String() + " " + l.path + "\n")
	}
	p := s.recordPath()
	if err := os.WriteFile(p, []byte(b.String()), 0o644); errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(filepath.Dir(p), 0o777) == nil {
			_ = os.WriteFile(p, []byte(b.String()), 0o644)
		}
	}
}

// beginWrite marks the start of an operation that writes objects or takes
// locks; the returned function ends it.
func (s *lockSet) beginWrite() func() {
	s.mu.Lock()
	if s.pid == 0 {
		s.pid = os.Getpid()
	}
	s.writers++
	if s.writers == 1 && len(s.held) == 0 {
		s.watch = startSignalWatch(s)
		s.writeRecordLocked()
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.writers--
		s.settleLocked()
		s.mu.Unlock()
	}
}

// settleLocked drops the record and the signal watch once nothing is held.
func (s *lockSet) settleLocked() {
	if s.writers == 0 && len(s.held) == 0 {
		s.writeRecordLocked()
		if s.watch != nil {
			s.watch.stop()
			s.watch = nil
		}
		return
	}
	s.writeRecordLocked()
}

// removeAllLocked removes every lock held and the record, for the signal
// handler; s.mu is held and stays held while the process ends.
func (s *lockSet) removeAllLocked() {
	for _, l := range s.held {
		_ = os.Remove(l.path)
		l.done = true
	}
	s.held = nil
	_ = os.Remove(s.recordPath())
}

// acquireLock creates target.lock with O_EXCL, as git does, retrying with
// backoff for lockWait while another process holds it. A lock a killed td
// process left is removed at once, with a warning.
func (r *Repo) acquireLock(target string) (*lockFile, error) {
	s := &r.locks
	end := s.beginWrite()
	defer end()
	path := target + ".lock"
	deadline := time.Now().Add(lockWait)
	backoff := time.Millisecond
	swept := false
	for {
		s.mu.Lock()
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			l := &lockFile{set: s, target: target, path: path, f: f}
			l.stamp = statStamp(f)
			s.held = append(s.held, l)
			s.writeRecordLocked()
			s.mu.Unlock()
			return l, nil
		}
		s.mu.Unlock()
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create lock file: %w", err)
		}
		if !swept {
			swept = true
			if r.ClearStaleLocks() > 0 {
				continue
			}
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

// write fills the lock file with data and syncs it, keeping the lock: the
// target changes only when rename is called.
func (l *lockFile) write(data []byte) error {
	if _, err := l.f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	l.set.mu.Lock()
	l.stamp = statStamp(l.f)
	l.set.writeRecordLocked()
	l.set.mu.Unlock()
	return nil
}

// rename closes the lock file and renames it over the target, which
// releases the lock.
func (l *lockFile) rename() error {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.done {
		return fmt.Errorf("replace %s: the lock was removed", l.target)
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", l.path, err)
	}
	err := os.Rename(l.path, l.target)
	if err != nil {
		_ = os.Remove(l.path)
		err = fmt.Errorf("replace %s: %w", l.target, err)
	}
	l.done = true
	s.forgetLocked(l)
	return err
}

// commit writes data to the lock file, syncs it and renames it over the
// target, which releases the lock.
func (l *lockFile) commit(data []byte) error {
	if err := l.write(data); err != nil {
		return err
	}
	return l.rename()
}

// release removes the lock file unless commit already renamed it. It is safe
// to defer after a successful commit.
func (l *lockFile) release() {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.done {
		return
	}
	l.done = true
	_ = l.f.Close()
	_ = os.Remove(l.path)
	s.forgetLocked(l)
}

func (s *lockSet) forgetLocked(l *lockFile) {
	for i, h := range s.held {
		if h == l {
			s.held = append(s.held[:i], s.held[i+1:]...)
			break
		}
	}
	s.settleLocked()
}

// TakeWarnings returns the warnings gathered since the last call (stale
// locks removed, for one), for the caller to show.
func (r *Repo) TakeWarnings() []string {
	r.locks.mu.Lock()
	defer r.locks.mu.Unlock()
	w := r.locks.notes
	r.locks.notes = nil
	return w
}

// ClearStaleLocks removes what td processes that were killed left in the
// repository: the git lock files their records prove are theirs, their
// temporary object files and the records. It returns how many lock files
// it removed and adds a warning naming them; a lock it cannot prove is
// td's is left alone. It costs one directory read when nothing was left.
func (r *Repo) ClearStaleLocks() int {
	dir := filepath.Join(r.commonDir, lockRecordDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	self := os.Getpid()
	var removed []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 || pid == self || processAlive(pid) {
			continue
		}
		rec := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(rec)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			rest, ok := strings.CutPrefix(line, "lock ")
			if !ok {
				continue
			}
			f := strings.SplitN(rest, " ", 4)
			if len(f) != 4 {
				continue
			}
			var want fileStamp
			var perr error
			for i, p := range []*int64{&want.ino, &want.mtime, &want.size} {
				if *p, perr = strconv.ParseInt(f[i], 10, 64); perr != nil {
					break
				}
			}
			path := f[3]
			if perr != nil || !strings.HasSuffix(path, ".lock") || !r.inRepository(path) {
				continue
			}
			if fi, err := os.Lstat(path); err == nil && stampOf(fi) == want {
				if os.Remove(path) == nil {
					removed = append(removed, r.displayPath(path))
				}
			}
		}
		r.sweepTempObjects(pid)
		_ = os.Remove(rec)
	}
	if len(removed) > 0 {
		r.locks.mu.Lock()
		r.locks.notes = append(r.locks.notes, fmt.Sprintf("removed %s, left by a td process that was killed", strings.Join(removed, " and ")))
		r.locks.mu.Unlock()
	}
	return len(removed)
}

// inRepository reports whether p lies inside the git directory or the
// common dir, where the only locks td takes are.
func (r *Repo) inRepository(p string) bool {
	for _, base := range []string{r.gitDir, r.commonDir} {
		if rel, err := filepath.Rel(base, p); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// displayPath names a file for messages: relative to the work tree root
// when it lies inside it.
func (r *Repo) displayPath(p string) string {
	if rel, err := filepath.Rel(r.root, p); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return p
}

// tempObjectPrefix starts the name of the temporary files td writes
// objects through; the process ID follows, so that the files of a killed
// process can be told from a live writer's.
const tempObjectPrefix = "tmp_obj_td"

// sweepTempObjects removes the temporary object files process pid left in
// the object directories.
func (r *Repo) sweepTempObjects(pid int) {
	objects := filepath.Join(r.commonDir, "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		return
	}
	prefix := tempObjectPrefix + strconv.Itoa(pid) + "_"
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 && d.Name() != "pack" {
			continue
		}
		sub := filepath.Join(objects, d.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, f := range files {
			if strings.HasPrefix(f.Name(), prefix) {
				_ = os.Remove(filepath.Join(sub, f.Name()))
			}
		}
	}
}

func statStamp(f *os.File) fileStamp {
	fi, err := f.Stat()
	if err != nil {
		return fileStamp{}
	}
	return stampOf(fi)
}
