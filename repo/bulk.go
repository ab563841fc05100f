package repo

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tdproject/td/repo/gitrepo"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Write is one file write of a bulk transaction step (Tx.WriteMany): a
// whole file replaced, or one line appended to a log.
type Write struct {
	// Elem is the path under .todos, as for WriteFile.
	Elem []string
	Data []byte
	// Append appends Data as one line instead of replacing the file.
	Append bool
}

// bulkSyncWorkers is how many files WriteMany syncs at once: the disk
// groups concurrent syncs into fewer journal commits.
const bulkSyncWorkers = 32

// WriteMany makes many writes as one step of the transaction, with the
// same guarantee as WriteFile and AppendLine one by one (they land with
// the transaction or not at all) at a fraction of the cost: the undo
// records of every write go to the log in one write and one sync, the
// files are then written without a sync each, and all of them are synced
// together when the transaction commits, before its undo log goes. A crash in between leaves the undo log, which rolls every file
// back. An import of thousands of issues needs this: one sync costs about
// a millisecond, and writing one issue one by one costs six.
func (tx *Tx) WriteMany(ws []Write) error {
	if tx.failed != nil {
		return tx.failed
	}
	if len(ws) == 0 {
		return nil
	}
	s := tx.s
	fail := func(err error) error { tx.failed = err; return err }
	// What the undo log already covers, and what this step adds.
	covered := map[string]string{}
	if tx.undo != nil {
		for _, r := range tx.undo.records {
			if covered[r.Path] != opReplace {
				covered[r.Path] = r.Op
			}
		}
	}
	paths := make([]string, len(ws))
	absent := map[string]bool{} // files this step creates
	var recs []undoRecord
	dirs := map[string]bool{}
	for i, w := range ws {
		p := s.Path(w.Elem...)
		paths[i] = p
		if !w.Append && len(w.Elem) == 2 && w.Elem[0] == IssuesDir && len(w.Data) > MaxIssueFileSize {
			id := strings.TrimSuffix(w.Elem[1], ".md")
			return fail(Errorf(CodeInvalid, "%s would be %d bytes, over the %d byte limit of an issue file; shorten its description or move the bulk into a file the issue links to", id, len(w.Data), MaxIssueFileSize))
		}
		if !dirs[filepath.Dir(p)] {
			if err := refuseSymlink(filepath.Dir(p)); err != nil {
				return fail(err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fail(fmt.Errorf("create %s: %w", s.rel(filepath.Dir(p)), err))
			}
			dirs[filepath.Dir(p)] = true
		}
		rel, err := filepath.Rel(s.Dir, p)
		if err != nil {
			return fail(err)
		}
		rel = filepath.ToSlash(rel)
		op := opReplace
		if w.Append {
			op = opAppend
		}
		if c, ok := covered[rel]; ok && (c == opReplace || op == opAppend) {
			continue
		}
		rec := undoRecord{Path: rel, Op: op}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rec.Absent = true
		case err != nil:
			return fail(s.FileError(p, err))
		case fi.Mode()&fs.ModeSymlink != 0:
			return fail(s.FileError(p, checkRegular(fi, -1)))
		case !fi.Mode().IsRegular():
			return fail(Errorf(CodeRefused, "%s is not a regular file, so td cannot write it; move it aside (git checkout -- %s restores a committed copy) and run the command again", s.rel(p), s.rel(p)))
		default:
			rec.Size, rec.Mode = fi.Size(), fi.Mode().Perm()
			if op == opReplace {
				if rec.Old, err = os.ReadFile(p); err != nil {
					return fail(s.FileError(p, err))
				}
				rec.Size = int64(len(rec.Old))
			}
		}
		covered[rel] = op
		if rec.Absent {
			absent[p] = true
		}
		recs = append(recs, rec)
		tx.noteBefore(p)
	}
	if err := tx.addUndo(recs); err != nil {
		return fail(err)
	}
	synced := map[string]bool{}
	for i, w := range ws {
		p := paths[i]
		if err := s.fault(stepWrite, p); err != nil {
			return fail(err)
		}
		var err error
		if absent[p] {
			// A new file: the undo record removes it whatever it holds,
			// so it is written in place, without a temporary file.
			delete(absent, p)
			if w.Append {
				tx.remember(p, nil)
			} else {
				tx.remember(p, w.Data)
			}
			err = createFile(p, w.Data, w.Append)
		} else if w.Append {
			tx.remember(p, nil)
			var warn string
			warn, err = appendLineNoSync(p, w.Data)
			if warn != "" {
				s.warnf("%s%s", s.rel(p), warn)
			}
		} else {
			tx.remember(p, w.Data)
			err = replaceFile(p, w.Data, false)
		}
		if err != nil {
			return fail(err)
		}
		if !synced[p] {
			synced[p] = true
			tx.written = append(tx.written, p)
		}
	}
	tx.unsynced = append(tx.unsynced, tx.written[len(tx.written)-len(synced):]...)
	for d := range dirs {
		tx.unsyncedDirs = append(tx.unsyncedDirs, d)
	}
	return nil
}

// syncBulk makes WriteMany's writes durable before the transaction
// commits: one sync of the file system where the platform has it,
// otherwise every file and directory, many at once.
func (tx *Tx) syncBulk() error {
	if len(tx.unsynced) == 0 {
		return nil
	}
	files, dirs := tx.unsynced, tx.unsyncedDirs
	tx.unsynced, tx.unsyncedDirs = nil, nil
	if ok, err := syncFS(tx.s.Dir); ok {
		return err
	}
	return syncAll(files, dirs)
}

// addUndo writes undo records in one write and one sync.
func (tx *Tx) addUndo(recs []undoRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := tx.s.fault(stepUndo, tx.s.Path(recs[0].Path)); err != nil {
		return err
	}
	if tx.undo == nil {
		u, err := tx.s.createUndo()
		if err != nil {
			return err
		}
		tx.undo = u
	}
	var buf []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	u := tx.undo
	if _, err := u.f.Write(buf); err != nil {
		return fmt.Errorf("write %s: %w", tx.s.rel(u.f.Name()), err)
	}
	if err := u.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tx.s.rel(u.f.Name()), err)
	}
	u.records = append(u.records, recs...)
	return nil
}

// createFile writes a file that does not exist yet; a line gets its
// final newline.
func createFile(path string, data []byte, line bool) error {
	if line && (len(data) == 0 || data[len(data)-1] != '\n') {
		data = append(data, '\n')
	}
	f, err := gitrepo.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// appendLineNoSync appends one line as appendLine does, leaving the sync
// to the caller.
func appendLineNoSync(path string, line []byte) (warn string, err error) {
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
	f, err := gitrepo.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("append to %s: %w", path, err)
	}
	defer f.Close()
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	if before > 0 {
		torn, n, err := tornTail(f, before)
		if err != nil {
			return "", fmt.Errorf("append to %s: %w", path, err)
		}
		if torn {
			line = append([]byte{'\n'}, line...)
			warn = fmt.Sprintf(":%d: the last line was cut short; td ended it with a newline so that the new entry stands on its own line (td check reports the cut line: repair or remove it)", n)
		}
	}
	if _, err := f.Write(line); err != nil {
		return "", fmt.Errorf("append to %s: %w", path, err)
	}
	return warn, nil
}

// syncAll syncs files and directories, many at once.
func syncAll(files, dirs []string) error {
	all := append(append([]string(nil), files...), dirs...)
	var mu sync.Mutex
	var first error
	ForEach(len(all), bulkSyncWorkers, 8, func(i int) {
		f, err := os.Open(all[i])
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil && i < len(files) {
			mu.Lock()
			if first == nil {
				first = fmt.Errorf("sync %s: %w", all[i], err)
			}
			mu.Unlock()
		}
	})
	return first
}

// Describe notes what the transaction does for the commit git mode auto
// makes of it: the session, its action and an issue ("" for none), as
// the store's own writers note them.
func (tx *Tx) Describe(session, action, issue string) { tx.describe(session, action, issue) }
