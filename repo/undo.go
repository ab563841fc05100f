package repo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// UndoFile is the transaction's undo log under .todos/local: while it
// exists, a transaction is unfinished (see the package comment).
const UndoFile = "tx-undo.jsonl"

// undoRecord is one line of the undo log: what one file was before the
// transaction first touched it in a way an earlier record cannot undo.
type undoRecord struct {
	Path   string      `json:"path"`             // relative to .todos, slash-separated
	Op     string      `json:"op"`               // opReplace or opAppend
	Absent bool        `json:"absent,omitempty"` // the file did not exist
	Size   int64       `json:"size"`             // its length before
	Mode   fs.FileMode `json:"mode,omitempty"`   // opReplace: its permissions
	Old    []byte      `json:"old,omitempty"`    // opReplace: its content
}

const (
	opReplace = "replace" // an atomic rename over the file
	opAppend  = "append"  // a line appended to a log
)

// Steps a test can fail or stop a transaction at (Store.fault).
const (
	stepUndo   = "undo"   // before an undo record is written
	stepWrite  = "write"  // before a file is written, after its record
	stepCommit = "commit" // before the undo log is removed
	stepUndone = "undone" // rolling back, before a file is restored
)

// undoLog is the open undo log of one transaction.
type undoLog struct {
	s       *Store
	f       *os.File
	records []undoRecord
}

// undoPath is the undo log's path.
func (s *Store) undoPath() string { return s.Path(LocalDir, UndoFile) }

// needsRecord reports whether a touch of rel by op needs a record of its
// own: a replace record restores the file whatever came after it, and an
// append record restores it after any number of appends, but not after a
// replace.
func (u *undoLog) needsRecord(rel, op string) bool {
	if u == nil {
		return true
	}
	seen := false
	for _, r := range u.records {
		if r.Path != rel {
			continue
		}
		seen = true
		if r.Op == opReplace || op == opAppend {
			return false
		}
	}
	return !seen || op == opReplace
}

// guard writes, and syncs to disk, the record that undoes the touch of p
// by op, before the caller touches p: the undo log is written ahead.
func (tx *Tx) guard(p, op string) error {
	s := tx.s
	rel, err := filepath.Rel(s.Dir, p)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if !tx.undo.needsRecord(rel, op) {
		return nil
	}
	rec := undoRecord{Path: rel, Op: op}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rec.Absent = true
	case err != nil:
		return s.FileError(p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return s.FileError(p, checkRegular(fi, -1))
	case !fi.Mode().IsRegular():
		// Writing would fail anyway: refuse now, with the way out.
		return Errorf(CodeRefused, "%s is not a regular file, so td cannot write it; move it aside (git checkout -- %s restores a committed copy) and run the command again", s.rel(p), s.rel(p))
	default:
		rec.Size, rec.Mode = fi.Size(), fi.Mode().Perm()
		if op == opReplace {
			if rec.Old, err = os.ReadFile(p); err != nil {
				return s.FileError(p, err)
			}
			rec.Size = int64(len(rec.Old))
		}
	}
	if err := s.fault(stepUndo, p); err != nil {
		return err
	}
	if tx.undo == nil {
		u, err := s.createUndo()
		if err != nil {
			return err
		}
		tx.undo = u
	}
	return tx.undo.add(rec)
}

// createUndo creates the undo log; one left by an earlier transaction has
// been rolled back before (Update), so it must not exist.
func (s *Store) createUndo() (*undoLog, error) {
	p := s.undoPath()
	if err := refuseSymlink(p); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", s.rel(p), err)
	}
	// The log's name must be on disk before any file it protects changes.
	syncDir(filepath.Dir(p))
	return &undoLog{s: s, f: f}, nil
}

// add appends one record and waits for the disk.
func (u *undoLog) add(rec undoRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := u.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", u.s.rel(u.f.Name()), err)
	}
	if err := u.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", u.s.rel(u.f.Name()), err)
	}
	u.records = append(u.records, rec)
	return nil
}

// commit ends a transaction whose every write succeeded: removing the undo
// log is the moment it happens. Before that, a crash rolls it back.
func (u *undoLog) commit() error {
	if u == nil {
		return nil
	}
	if err := u.s.fault(stepCommit, u.f.Name()); err != nil {
		return err
	}
	u.f.Close()
	if err := os.Remove(u.f.Name()); err != nil {
		return fmt.Errorf("remove %s: %w", u.s.rel(u.f.Name()), err)
	}
	syncDir(filepath.Dir(u.f.Name()))
	return nil
}

// rollback restores every file the transaction touched, newest record
// first, then removes the undo log. On failure the log stays for the next
// td command to try again.
func (u *undoLog) rollback() error {
	if u == nil {
		return nil
	}
	u.f.Close()
	return u.s.undoRecords(u.f.Name(), u.records, "")
}

// undoRecords rolls recs back, newest first, then removes the log. With
// keep, what each file held before it was restored is first copied under
// keep (a directory under .todos/local), so that a change made to it since
// the crash is not lost unseen.
func (s *Store) undoRecords(logPath string, recs []undoRecord, keep string) error {
	for i := len(recs) - 1; i >= 0; i-- {
		if keep != "" {
			if err := s.keepCopy(recs[i], keep); err != nil {
				return fmt.Errorf("%w; td rolls the transaction back from %s at its next command", err, s.rel(logPath))
			}
		}
		if err := s.undoOne(recs[i]); err != nil {
			return fmt.Errorf("%w; td rolls the transaction back from %s at its next command", err, s.rel(logPath))
		}
	}
	if err := os.Remove(logPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", s.rel(logPath), err)
	}
	syncDir(filepath.Dir(logPath))
	return nil
}

// undoOne puts one file back as its record says. Each step can be
// repeated: a crash while rolling back is rolled back again.
func (s *Store) undoOne(r undoRecord) error {
	p := s.Path(filepath.FromSlash(r.Path))
	if err := s.fault(stepUndone, p); err != nil {
		return err
	}
	if err := refuseSymlink(p); err != nil {
		return err
	}
	if r.Absent {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore %s: %w", s.rel(p), err)
		}
		return nil
	}
	if r.Op == opReplace {
		// A write that failed (a full disk) left the file as it was:
		// restoring it would need the space the write did not find.
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, r.Old) {
			return nil
		}
		if err := writeFileAtomic(p, r.Old); err != nil {
			return err
		}
		if r.Mode != 0 {
			if err := os.Chmod(p, r.Mode); err != nil {
				return fmt.Errorf("restore %s: %w", s.rel(p), err)
			}
		}
		return nil
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore %s: it is gone, and it had %d bytes before the unfinished transaction", s.rel(p), r.Size)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", s.rel(p), err)
	}
	if fi.Size() <= r.Size {
		return nil
	}
	if err := truncateSync(p, r.Size); err != nil {
		return fmt.Errorf("restore %s: %w", s.rel(p), err)
	}
	return nil
}

// truncateSync cuts a regular file back to size and waits for the disk.
func truncateSync(p string, size int64) error {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// maxUndoSize bounds the undo log td reads: a transaction touches a few
// files of at most MaxIssueFileSize each.
const maxUndoSize = 256 << 20

// recover rolls back the transaction a td process left unfinished (it was
// killed, or the machine stopped), under the store lock, which the caller
// holds. It warns with what it restored.
func (s *Store) recover() error {
	p := s.undoPath()
	data, err := readRegular(p, maxUndoSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return s.FileError(p, err)
	}
	recs, err := parseUndo(s.rel(p), data)
	if err != nil {
		return err
	}
	s.sweepUndone()
	keep := s.keepDir()
	if err := s.undoRecords(p, recs, keep); err != nil {
		return err
	}
	var names []string
	for _, r := range recs {
		names = AppendNew(names, TodosDir+"/"+r.Path)
	}
	if len(names) == 0 {
		s.warnf("removed %s: a td process stopped before its transaction wrote anything", s.rel(p))
		return nil
	}
	kept := ""
	if _, err := os.Lstat(keep); err == nil {
		kept = "; what it had written is kept in " + s.rel(keep) + "/"
	}
	s.warnf("rolled back a transaction a td process left unfinished: restored %s%s", strings.Join(names, ", "), kept)
	return nil
}

// undoneKept is how long what a roll back replaced stays under
// .todos/local/undone before the next roll back sweeps it.
const undoneKept = 30 * 24 * time.Hour

// sweepUndone removes the copies earlier roll backs kept that are older
// than undoneKept, by the time in their names; anything else there, a
// name td did not make above all, is left alone.
func (s *Store) sweepUndone() {
	dir := s.Path(LocalDir, "undone")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name, _, _ := strings.Cut(e.Name(), "-")
		t, err := time.Parse("20060102T150405Z", name)
		if err != nil || !e.IsDir() || s.Now().Sub(t) < undoneKept {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// keepDir names a new directory for what a roll back replaces:
// .todos/local/undone/<time>, made only when something is kept.
func (s *Store) keepDir() string {
	base := s.Path(LocalDir, "undone", s.Now().Format("20060102T150405Z"))
	p := base
	for n := 2; ; n++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%d", base, n)
	}
}

// keepCopy copies what r's file holds beyond what the roll back restores
// (the whole file for a replace, the appended tail for an append) to the
// same path under keep. A file already as the record says needs nothing.
func (s *Store) keepCopy(r undoRecord, keep string) error {
	p := s.Path(filepath.FromSlash(r.Path))
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // nothing to keep, or undoOne refuses it
	}
	cur, err := os.ReadFile(p)
	if err != nil {
		return s.FileError(p, err)
	}
	switch {
	case r.Op == opReplace && !r.Absent && bytes.Equal(cur, r.Old):
		return nil
	case r.Op == opAppend && !r.Absent:
		if int64(len(cur)) <= r.Size {
			return nil
		}
		cur = cur[r.Size:]
	}
	dst := filepath.Join(keep, filepath.FromSlash(r.Path))
	if err := s.refuseLinks(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.rel(filepath.Dir(dst)), err)
	}
	return writeFileAtomic(dst, cur)
}

// parseUndo reads an undo log. A last line cut short is a record that was
// never synced, so its file was never touched: it is ignored. Any other
// unreadable line stops td with the way out.
func parseUndo(rel string, data []byte) ([]undoRecord, error) {
	var recs []undoRecord
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn tail: never synced, never acted on
		}
		var r undoRecord
		dec := json.NewDecoder(bytes.NewReader(data[:i]))
		dec.DisallowUnknownFields()
		err := dec.Decode(&r)
		if err == nil {
			_, err = dec.Token()
			if errors.Is(err, io.EOF) {
				err = nil
			} else if err == nil {
				err = errors.New("trailing data")
			}
		}
		if err == nil {
			err = r.check()
		}
		if err != nil {
			return nil, &Error{Code: CodeParse, Msg: fmt.Sprintf("%s:%d: unreadable record of an unfinished transaction (%v); restore the files it names by hand (git diff shows them), then delete %s", rel, line, err, rel)}
		}
		recs = append(recs, r)
		data = data[i+1:]
	}
	return recs, nil
}

// check refuses a record that would restore anything but a file td writes
// in a transaction: a path outside .todos, or under .todos/local.
func (r undoRecord) check() error {
	switch {
	case r.Op != opReplace && r.Op != opAppend:
		return fmt.Errorf("op %q", r.Op)
	case r.Path == "" || path.IsAbs(r.Path) || path.Clean(r.Path) != r.Path || r.Path == ".." || strings.HasPrefix(r.Path, "../"):
		return fmt.Errorf("path %q is not inside .todos", r.Path)
	case r.Path == LocalDir || strings.HasPrefix(r.Path, LocalDir+"/"):
		return fmt.Errorf("path %q is under .todos/local", r.Path)
	case r.Size < 0 || (r.Op == opReplace && !r.Absent && int64(len(r.Old)) != r.Size):
		return fmt.Errorf("size %d does not match the content", r.Size)
	}
	return nil
}

// fault is the test seam: it returns the error a test injects at step on
// path, nil in production.
func (s *Store) fault(step, p string) error {
	if s.faults == nil {
		return nil
	}
	return s.faults(step, p)
}
