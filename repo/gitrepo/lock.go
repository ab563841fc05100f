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
// account of the ones it holds: while a Repo writes objects or holds a lock
// it appends to a record, <common dir>/td-locks/<pid>-<tag>, a line per
// change: each lock with the inode, modification time and size td left it
// with ("lock"), the size a write under way will leave ("writing"), its
// release ("free"), and the temporary names it creates ("temp"). A lock is
// noted under a temporary name before it is linked to its real one, so no
// kill leaves a lock the record does not know. A process killed before it
// could clean up leaves its record behind; the next td run finds the
// record's process gone and removes exactly the locks that are still the
// files td made (a lock git made since is another file), td's temporary
// names and object files, with one warning. A lock whose record is missing
// or differs is never touched: it may be git's.
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
	// writing is the size the lock file will have once a write under way
	// ends, -1 when none is: a process killed while writing leaves a file
	// that differs from stamp, yet is td's.
	writing int64
	// noSync leaves the written lock file to the system to flush, as git
	// leaves the index unless core.fsync names it.
	noSync bool
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
	// wait replaces lockWait when not zero: tests that wait out a held
	// lock wait less.
	wait  time.Duration
	pid   int
	name  string // the record's file name: the process ID, a dash, a random tag
	watch *signalWatch
	notes []string // warnings for the caller, taken by TakeWarnings
}

func (s *lockSet) recordPath() string {
	return filepath.Join(s.dir, lockRecordDir, s.name)
}

// noteLocked appends one line to this process's record; s.mu is held. The
// record only grows while the process works, one write per line, so a kill
// cannot tear what it says: for each lock the last line counts ("lock",
// "writing", or "free" once released). A line that cannot be written only
// means a kill would leave a lock the next run cannot prove is td's, so
// failure is not an error.
func (s *lockSet) noteLocked(line string) {
	p := s.recordPath()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(p), 0o777) == nil {
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if err != nil {
		return
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
}

// noteLockLocked records the state of l.
func (s *lockSet) noteLockLocked(l *lockFile) {
	switch {
	case l.done:
		s.noteLocked("free " + l.path)
	case l.writing >= 0:
		s.noteLocked("writing " + strconv.FormatInt(l.writing, 10) + " " + l.stamp.String() + " " + l.path)
	default:
		s.noteLocked("lock " + l.stamp.String() + " " + l.path)
	}
}

// beginWrite marks the start of an operation that writes objects or takes
// locks; the returned function ends it.
func (s *lockSet) beginWrite() func() {
	s.mu.Lock()
	if s.pid == 0 {
		// Two Repo values in one process keep two records.
		s.pid = os.Getpid()
		s.name = strconv.Itoa(s.pid) + "-" + randomTag()
	}
	s.writers++
	if s.writers == 1 && len(s.held) == 0 {
		s.watch = startSignalWatch(s)
		head := "td " + strconv.Itoa(s.pid)
		if start := processStart(s.pid); start != "" {
			head += " " + start
		}
		s.noteLocked(head)
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
		_ = os.Remove(s.recordPath())
		if s.watch != nil {
			s.watch.stop()
			s.watch = nil
		}
	}
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
	wait := s.wait
	if wait == 0 {
		wait = lockWait
	}
	deadline := time.Now().Add(wait)
	backoff := time.Millisecond
	swept := false
	for {
		s.mu.Lock()
		l, err := s.createLocked(target, path)
		s.mu.Unlock()
		if err == nil {
			return l, nil
		}
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
			return nil, fmt.Errorf("%w: %s still exists after %v; if no git process is running in this repository, remove the file", ErrLocked, path, wait)
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

// createLocked creates the lock file so that the record names it, with
// its inode, before it exists under its name: the file is made under a
// temporary name beside it, noted, then hard-linked to the lock's name,
// which fails if the name exists as O_EXCL does. A kill at any point
// leaves either no lock or one the record proves is td's, and at most a
// temporary name the record also lists. Where hard links are not
// available the lock is created with O_EXCL and noted right after.
func (s *lockSet) createLocked(target, path string) (*lockFile, error) {
	// A leading dot and the .lock suffix keep git from taking the name
	// for a reference.
	tmp := filepath.Join(filepath.Dir(path), ".td-"+strconv.Itoa(s.pid)+"-"+randomTag()+".lock")
	s.noteLocked("temp " + tmp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, err
		}
		l := &lockFile{set: s, target: target, path: path, f: f, writing: -1, stamp: statStamp(f)}
		s.held = append(s.held, l)
		s.noteLockLocked(l)
		return l, nil
	}
	l := &lockFile{set: s, target: target, path: path, f: f, writing: -1, stamp: statStamp(f)}
	s.noteLockLocked(l)
	lerr := os.Link(tmp, path)
	if lerr != nil && !errors.Is(lerr, fs.ErrExist) {
		// No hard links here: fall back to O_EXCL on the lock's name.
		_ = f.Close()
		_ = os.Remove(tmp)
		s.noteLocked("free " + path)
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, err
		}
		l.f, l.stamp = f, statStamp(f)
		s.held = append(s.held, l)
		s.noteLockLocked(l)
		return l, nil
	}
	_ = os.Remove(tmp)
	if lerr != nil {
		_ = f.Close()
		s.noteLocked("free " + path)
		return nil, lerr
	}
	s.held = append(s.held, l)
	return l, nil
}

// randomTag is six random letters and digits, for unique names.
func randomTag() string {
	var b [6]byte
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[rand.N(36)]
	}
	return string(b[:])
}

// write fills the lock file with data and syncs it, keeping the lock: the
// target changes only when rename is called.
func (l *lockFile) write(data []byte) error { return l.writeParts([][]byte{data}) }

// writeParts is write of the parts one after the other, without joining
// them first.
func (l *lockFile) writeParts(parts [][]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	l.set.mu.Lock()
	l.writing = l.stamp.size + int64(n)
	l.set.noteLockLocked(l)
	l.set.mu.Unlock()
	for _, p := range parts {
		if _, err := l.f.Write(p); err != nil {
			return fmt.Errorf("write %s: %w", l.path, err)
		}
	}
	if !l.noSync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", l.path, err)
		}
	}
	l.set.mu.Lock()
	l.stamp, l.writing = statStamp(l.f), -1
	l.set.noteLockLocked(l)
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
	s.noteLockLocked(l)
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
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		rec := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(rec)
		if err != nil || (processAlive(pid) && !reusedPID(pid, data)) {
			continue
		}
		last := map[string]string{}
		var order []string
		for _, line := range strings.Split(string(data), "\n") {
			path := recordPath(line)
			if path == "" {
				continue
			}
			if _, seen := last[path]; !seen {
				order = append(order, path)
			}
			last[path] = line
		}
		for _, p := range order {
			if t, ok := strings.CutPrefix(last[p], "temp "); ok && r.inRepository(t) && strings.HasPrefix(filepath.Base(t), ".td-"+strconv.Itoa(pid)+"-") {
				_ = os.Remove(t)
				continue
			}
			if path, ok := provenLock(last[p]); ok && r.inRepository(path) {
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

// reusedPID reports whether the live process pid is not the one that
// wrote record: the record's first line, "td PID START", names a start
// time the process with that ID now does not have. A record without a
// start (an older td, a system that does not tell) proves nothing.
func reusedPID(pid int, record []byte) bool {
	head, _, _ := strings.Cut(string(record), "\n")
	f := strings.Fields(head)
	if len(f) != 3 || f[0] != "td" || f[1] != strconv.Itoa(pid) {
		return false
	}
	now := processStart(pid)
	return now != "" && now != f[2]
}

// recordPath is the lock file a line of a record is about, "" for none.
func recordPath(line string) string {
	kind, rest, _ := strings.Cut(line, " ")
	fields := map[string]int{"free": 0, "temp": 0, "lock": 3, "writing": 4}[kind]
	if kind != "free" && kind != "temp" && fields == 0 {
		return ""
	}
	f := strings.SplitN(rest, " ", fields+1)
	if len(f) != fields+1 {
		return ""
	}
	return f[fields]
}

// provenLock reads one line of a dead process's record and returns the
// lock file it names when the file on disk is still the one that process
// made: a "lock" line proves it by the same inode, time and size; a
// "writing" line, left by a process killed while writing, by the same
// inode and a size between the one before the write and the one after,
// with a time no earlier. A lock git made since is another file.
func provenLock(line string) (string, bool) {
	kind, rest, _ := strings.Cut(line, " ")
	want := int64(-1)
	if kind == "writing" {
		size, more, ok := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil {
			return "", false
		}
		want, rest = n, more
	} else if kind != "lock" {
		return "", false
	}
	f := strings.SplitN(rest, " ", 4)
	if len(f) != 4 {
		return "", false
	}
	var st fileStamp
	for i, p := range []*int64{&st.ino, &st.mtime, &st.size} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return "", false
		}
		*p = n
	}
	path := f[3]
	if !strings.HasSuffix(path, ".lock") || !filepath.IsAbs(path) {
		return "", false
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	got := stampOf(fi)
	switch {
	case got == st:
		return path, true
	case want >= 0 && got.ino == st.ino && got.ino != 0 && got.size >= st.size && got.size <= want && got.mtime >= st.mtime:
		return path, true
	}
	return "", false
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
