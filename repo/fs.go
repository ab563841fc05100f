package repo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MaxIssueFileSize is the largest issue file td reads. A bigger file is
// reported, not parsed: nobody writes a megabyte of todos by hand.
const MaxIssueFileSize = 1 << 20

// maxLedgerSize bounds how much of a ledger file td reads at once.
const maxLedgerSize = 64 << 20

// WriteFileAtomic replaces path with data so that readers see either the old
// or the new content, never a torn file: write a temporary file in the same
// directory, fsync it, rename it over path, fsync the directory. An existing
// file keeps its permissions; a symlink is refused, never followed.
func WriteFileAtomic(path string, data []byte) error { return writeFileAtomic(path, data) }

func writeFileAtomic(path string, data []byte) error { return replaceFile(path, data, true) }

// writeCacheFile replaces a cache file under .todos/local the same way but
// without waiting for the disk: after a crash a cache may be old or cut
// short, and its checksum makes td rebuild it; waiting for fsync on every
// read command that refreshes a cache would cost more than the cache saves.
func writeCacheFile(path string, data []byte) error { return replaceFile(path, data, false) }

// ReadTail reads at most the last n bytes of the file at path: a stamp at
// the end of a cache, the last lines of a file td appends to.
func ReadTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-n, 0)
	return io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
}

// ReadCache reads the cache file name under .todos/local, refusing a
// symlink or a file over the caches' size limit, as td's own caches are.
func (s *Store) ReadCache(name string) ([]byte, error) { return s.readCache(name) }

// WriteCache replaces the cache file name under .todos/local atomically,
// without waiting for the disk; its temporary file is swept after a kill
// as the other caches' are.
func (s *Store) WriteCache(name string, data []byte) error {
	if len(data) > maxCacheSize {
		// ReadCache would refuse it: writing it would cost every command
		// that builds it the write, for nothing.
		return fmt.Errorf("%s: %d bytes is over the caches' limit of %d", name, len(data), maxCacheSize)
	}
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return err
	}
	return writeCacheFile(s.Path(LocalDir, name), data)
}

// Temporary files: a file under .todos is written first to
// .todos/local/tmp, which .todos/.gitignore keeps out of git add -A, and
// renamed into place; rename(2) is atomic across directories of one file
// system, and .todos/local lies inside .todos. The name starts with the
// process ID, so that the next td run can remove what a killed process
// left without touching a live writer's (sweepTempFiles). A file outside
// .todos, or a .todos/local that is a symlink or another file system,
// keeps its temporary file beside it.

// tempDirName is the directory of temporary files under .todos/local.
const tempDirName = "tmp"

// tempPath is where the temporary file of path is written.
func tempPath(path, rnd string) string {
	dir := filepath.Dir(path)
	for d := dir; ; {
		if filepath.Base(d) == TodosDir {
			local := filepath.Join(d, LocalDir)
			tmp := filepath.Join(local, tempDirName)
			if notSymlink(local) && notSymlink(tmp) && os.MkdirAll(tmp, 0o755) == nil && notSymlink(tmp) {
				return filepath.Join(tmp, strconv.Itoa(os.Getpid())+"-"+rnd+"-"+filepath.Base(path))
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d || d == "." {
			break
		}
		d = parent
	}
	return sameDirTemp(path, rnd)
}

// sameDirTemp is a temporary file beside path.
func sameDirTemp(path, rnd string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-"+rnd)
}

// notSymlink reports that p is not a symlink (it may not exist).
func notSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err != nil || fi.Mode()&fs.ModeSymlink == 0
}

// replaceFileInPlace is replaceFile with the temporary file beside path.
func replaceFileInPlace(path string, data []byte, durable bool) error {
	tmp := sameDirTemp(path, tempSuffix())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Perm() != 0o644 {
		_ = os.Chmod(tmp, fi.Mode().Perm())
	}
	if durable {
		if f, err := os.Open(tmp); err == nil {
			err = f.Sync()
			f.Close()
			if err != nil {
				os.Remove(tmp)
				return fmt.Errorf("sync %s: %w", path, err)
			}
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if durable {
		syncDir(filepath.Dir(path))
	}
	return nil
}

// sweepTempFiles removes the temporary files under .todos/local/tmp of td
// processes that are gone. The caller holds the store lock; a live
// process's files, and names td did not make, are left alone.
func sweepTempFiles(todos string) {
	dir := filepath.Join(todos, LocalDir, tempDirName)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pidText, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == self || processAlive(pid) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// tempSuffix makes a temporary file's name unique beside the process ID
// it starts with: 48 random bits, from the generator the runtime seeds
// from the system's randomness. crypto/rand cost a hook a tenth of a
// millisecond on its first use; the file is created with O_EXCL, so a
// name taken already fails rather than being followed or reused.
func tempSuffix() string {
	var rnd [8]byte
	binary.LittleEndian.PutUint64(rnd[:], rand.Uint64())
	return hex.EncodeToString(rnd[:6])
}

func replaceFile(path string, data []byte, durable bool) error {
	if err := refuseSymlink(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	rnd := tempSuffix()
	tmp := tempPath(path, rnd)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil && tmp != sameDirTemp(path, rnd) {
		tmp = sameDirTemp(path, rnd)
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	cleanup := func() { f.Close(); os.Remove(tmp) }
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Perm() != 0o644 {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if _, err := f.Write(data); err != nil {
		cleanup()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			cleanup()
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); errors.Is(err, syscall.EXDEV) {
		// .todos/local is another file system: rename in place instead.
		os.Remove(tmp)
		return replaceFileInPlace(path, data, durable)
	} else if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if durable {
		syncDir(dir)
	}
	return nil
}

// appendLine appends one line to an append-only log and fsyncs it. The caller
// holds the store lock. A write or sync that fails (a full disk) is cut
// back to the log's length before, so no partial line is left to swallow
// the next entry. A last line already cut short (a crash of an older td, a
// hand edit) is ended with a newline first, so the new entry starts on a
// line of its own and nothing is lost: warn says so, starting with the
// line number, for the caller to prefix with the path. write, when not
// nil, replaces the file's Write (a test's full disk).
func appendLine(path string, line []byte, write func(f *os.File, b []byte) (int, error)) (warn string, err error) {
	if err := refuseSymlink(path); err != nil {
		return "", err
	}
	fi, statErr := os.Lstat(path)
	var before int64
	if statErr == nil {
		if r := checkRegular(fi, -1); r != nil {
			return "", fmt.Errorf("append to %s: %w", path, r)
		}
		before = fi.Size()
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("append to %s: %w", path, err)
	}
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	if before > 0 {
		torn, n, err := tornTail(f, before)
		if err != nil {
			f.Close()
			return "", fmt.Errorf("append to %s: %w", path, err)
		}
		if torn {
			line = append([]byte{'\n'}, line...)
			warn = fmt.Sprintf(":%d: the last line was cut short; td ended it with a newline so that the new entry stands on its own line (td check reports the cut line: repair or remove it)", n)
		}
	}
	if write == nil {
		write = (*os.File).Write
	}
	fail := func(verb string, err error) (string, error) {
		// Cut back what was written: the log stays as it was.
		if statErr != nil {
			f.Close()
			os.Remove(path)
		} else {
			f.Truncate(before)
			f.Sync()
			f.Close()
		}
		return "", fmt.Errorf("%s %s (nothing was appended): %w", verb, path, err)
	}
	if _, err := write(f, line); err != nil {
		return fail("append to", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("append to %s: %w", path, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		syncDir(filepath.Dir(path))
	}
	return warn, nil
}

// tornTail reports whether the file of size bytes does not end in a
// newline, and the 1-based number of its last line.
func tornTail(f *os.File, size int64) (bool, int, error) {
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return false, 0, err
	}
	if last[0] == '\n' {
		return false, 0, nil
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, size))
	if err != nil {
		return false, 0, err
	}
	return true, bytes.Count(data, []byte{'\n'}) + 1, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every platform can sync a directory
		d.Close()
	}
}

// errSymlink is wrapped by refusals to follow a symlink under .todos.
var errSymlink = errors.New("symlink")

// refuseSymlink fails when path exists and is a symlink. td never follows a
// symlink under .todos: a link could point a write anywhere on disk.
func refuseSymlink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &Error{Code: CodeRefused, Msg: fmt.Sprintf("%s is a symlink; td does not follow symlinks under .todos", path), Err: errSymlink}
	}
	return nil
}

// refuseLinks fails when p, or any directory between .todos and p, is a
// symlink: under .todos/local a link could send the lock, the runtime or
// a cache write anywhere on disk. The message names the path from the
// work tree root and the fix.
func (s *Store) refuseLinks(p string) error {
	rel, err := filepath.Rel(s.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside %s", p, TodosDir)
	}
	d := s.Dir
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, elem)
		fi, err := os.Lstat(d)
		if err != nil {
			return nil // what does not exist is no link; td creates it
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &Error{Code: CodeRefused, Msg: fmt.Sprintf("%s is a symlink; td does not follow symlinks under .todos: remove the link and run the command again", s.rel(d)), Err: errSymlink}
		}
	}
	return nil
}

// maxCacheSize bounds a cache file td reads under .todos/local.
const maxCacheSize = 256 << 20

// readCache reads a cache file under .todos/local. Any error means no
// cache (td rebuilds it); a symlink or a non-file is refused, never
// followed, with a warning naming the fix: a link to /dev/zero would
// otherwise make td read forever.
func (s *Store) readCache(name string) ([]byte, error) {
	p := s.Path(LocalDir, name)
	data, err := readRegular(p, maxCacheSize)
	var r *refusal
	if errors.As(err, &r) && r.err == errSymlink {
		s.warnf("%s is a symlink; td does not follow symlinks under .todos and works without the cache: remove the link", s.rel(p))
	}
	return data, err
}

// lock takes the store lock, .todos/local/lock, refusing a symlink there.
// .todos/local is not committed, so a clone where td never ran has none:
// it is made here, as every writer's first step would make it.
func (s *Store) lock() (unlock func(), err error) {
	p := s.Path(LocalDir, "lock")
	if err := s.refuseLinks(p); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.rel(s.Path(LocalDir)), err)
	}
	return lockFile(p)
}

// refusal says why td will not read a file; the caller names the file,
// in the form its message needs ("path: reason" or "path reason").
type refusal struct {
	reason string // "is a symlink; …", starting with the verb
	err    error  // errSymlink for symlinks
}

func (r *refusal) Error() string { return r.reason }
func (r *refusal) Unwrap() error { return r.err }

// checkRegular refuses symlinks, anything that is not a regular file, and
// files over limit bytes (limit < 0: no size check).
func checkRegular(fi fs.FileInfo, limit int64) *refusal {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &refusal{"is a symlink; td does not follow symlinks under .todos", errSymlink}
	case !fi.Mode().IsRegular():
		return &refusal{"is not a regular file", nil}
	case limit >= 0 && fi.Size() > limit:
		return &refusal{fmt.Sprintf("is %d bytes, over the %d byte limit", fi.Size(), limit), nil}
	}
	return nil
}

// readRegular reads a regular file of at most limit bytes, refusing symlinks
// and oversized files with a *refusal.
func readRegular(path string, limit int64) ([]byte, error) {
	if data, ok := readRegularFast(path, limit); ok {
		return data, nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if r := checkRegular(fi, limit); r != nil {
		return nil, r
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// readTail reads the last n bytes of a regular file from the start of a
// line: nil when there is no file (or it is a symlink, or not regular,
// which the write that follows refuses with its reason).
func readTail(path string, n int64) []byte {
	fi, err := os.Lstat(path)
	if err != nil || checkRegular(fi, -1) != nil || fi.Size() == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	off := max(fi.Size()-n, 0)
	data := make([]byte, fi.Size()-off)
	k, err := f.ReadAt(data, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	data = data[:k]
	if off > 0 {
		// The first line may be cut: it starts after the first newline.
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	return data
}

// splitYAMLError splits yaml.v3's "yaml: line N: msg" into N and msg.
func splitYAMLError(err error) (int, string) {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(s, "line "); ok {
		if i := strings.Index(rest, ": "); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n, rest[i+2:]
			}
		}
	}
	return 0, s
}

// yamlErrorLine extracts the 1-based line from a yaml.v3 error, or 0.
func YAMLErrorLine(err error) int { n, _ := splitYAMLError(err); return n }

// yamlErrorMsg strips yaml.v3's "yaml: line N:" prefix.
func YAMLErrorMsg(err error) string { _, m := splitYAMLError(err); return m }

// lockTimeout bounds how long a td process waits for another to finish.
const lockTimeout = 30 * time.Second

// Locked runs fn holding the cross-process lock on .todos, for a use case
// that writes files itself rather than through a transaction: td resolve
// writes and stages the merged files of an unfinished git merge, which a
// transaction in git mode auto would try to commit.
func (s *Store) Locked(fn func() error) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// ReadRaw returns the bytes of one of td's files under .todos (elem joined
// below it: issues/ID.md, history/ID.jsonl), refusing a symlink, anything
// but a regular file and a file over the size td reads of its kind. It is
// for a use case that reads text without td's parsers, such as a search.
func (s *Store) ReadRaw(elem ...string) ([]byte, error) {
	rel := filepath.ToSlash(filepath.Join(elem...))
	data, err := readRegular(s.Path(elem...), snapshotSizeLimit(rel))
	var r *refusal
	if errors.As(err, &r) {
		return nil, &ParseError{Path: TodosDir + "/" + rel, Msg: r.reason}
	}
	return data, err
}

// ProcessAlive reports whether a process with this ID exists (one owned
// by another user counts): whether what a process left is still in use.
func ProcessAlive(pid int) bool { return processAlive(pid) }
