package repo

import (
	"errors"
	"io/fs"
	"os"
)

// A stamp tells one version of a file or directory from another by its
// inode, size and modification time. td replaces a file by renaming a new
// one into place (a new inode), and a directory's time moves whenever a
// name in it is added, removed or renamed.

// fileStampOf stamps the regular file at path; ok is false when there is
// none, or no inode numbers to stamp with.
func fileStampOf(path string) (stamp [3]int64, ok bool) {
	fi, ino, ok := lstatStamp(path)
	if !ok || !fi.Mode().IsRegular() {
		return stamp, false
	}
	return [3]int64{ino, fi.Size(), fi.ModTime().UnixNano()}, true
}

// dirStamp returns a directory's inode and modification time (ns).
func dirStamp(path string) (ino, mtime int64, ok bool) {
	fi, ino, ok := lstatStamp(path)
	if !ok || !fi.IsDir() {
		return 0, 0, false
	}
	return ino, fi.ModTime().UnixNano(), true
}

// Stamp is a file's size and modification time (ns) as one read saw
// them. A cache of something td derives from a file keys on its stamp, as
// the index cache does: while the stamp is the same, so is the file,
// unless it changed within the racy window (RacyCutoff). Size is
// StampAbsent when there is no file and StampUnknown when it could not be
// stated or is not a regular file.
type Stamp struct{ Size, Mtime int64 }

// The sizes of stamps that stamp no file.
const (
	StampAbsent  = -1
	StampUnknown = -2
)

// Trusted reports whether a cache may key on the stamp: it stamps a file,
// and one not changed at or after cutoff (RacyCutoff, taken when the
// cache is written).
func (st Stamp) Trusted(cutoff int64) bool {
	return st.Size != StampUnknown && (st.Size == StampAbsent || st.Mtime < cutoff)
}

// RacyCutoff is the modification time (ns) from which a file is too
// fresh for a cache written now to trust: it could change again within
// the same tick of the clock and keep its stamp.
func RacyCutoff() int64 { return racyCutoff() }

// StampFiles stamps the named files of dir under .todos, in parallel, one
// system call each: a whole directory of ledgers costs what the issue
// files' check costs.
func (s *Store) StampFiles(dir string, names []string) []Stamp {
	out := make([]Stamp, len(names))
	err := statIn(s.Path(dir), names, func(i int, size, mtime int64, err error) {
		switch {
		case err == nil:
			out[i] = Stamp{size, mtime}
		case errors.Is(err, fs.ErrNotExist):
			out[i] = Stamp{Size: StampAbsent}
		default:
			out[i] = Stamp{Size: StampUnknown}
		}
	})
	if err != nil {
		st := Stamp{Size: StampUnknown}
		if errors.Is(err, fs.ErrNotExist) {
			st.Size = StampAbsent
		}
		for i := range out {
			out[i] = st
		}
	}
	return out
}

// statIn stats each of names in the directory dir, in parallel, calling
// each with its index (once per name, from several goroutines). Each stat
// is one system call relative to the open directory: a lookup of one name
// there costs less than a walk of the absolute path, and at 10,000 files
// the stat calls are most of what checking a cache costs. The error is
// the directory's.
func statIn(dir string, names []string, each func(i int, size, mtime int64, err error)) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	fd := int(f.Fd())
	cutoff := racyCutoff()
	ForEach(len(names), IOWorkers(), 256, func(i int) {
		size, mtime, ctime, err := statAt(fd, root, names[i])
		each(i, size, stampTime(mtime, ctime, cutoff), err)
	})
	return nil
}

// stampTime is the time a file's stamp records: its modification time,
// or its status change time when that is later and out of the racy
// window (cutoff, RacyCutoff). An edit that puts the size and mtime back
// (cp -p, rsync -t, touch -r) still moves the ctime, which nothing sets
// by hand, as git's trustctime reads it: once the window passes the stamp
// differs from the one a cache recorded, and the file is read again. A
// fresh ctime is left out so that a file changed just now keeps one stamp
// while the window runs, as the racy rule expects.
func stampTime(mtime, ctime, cutoff int64) int64 {
	if ctime > mtime && ctime < cutoff {
		return ctime
	}
	return mtime
}
