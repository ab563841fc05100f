package repo

import (
	"os"
	"slices"
	"strings"
)

// The issue names cache, .todos/local/names.bin. Resolving a short ID
// (td show k3x) needs every issue file's name, and reading a directory of
// 10,000 names cost td show six of its twelve milliseconds. The set of
// names changes only when a file is created, removed or renamed in the
// directory, and each of those moves the directory's modification time;
// an edit in place does not change names. So the names are kept with the
// directory's inode and modification time, and used while both are what
// they were. They are written only when that time is older than the racy
// window: a change in the same clock tick as the listing would otherwise
// leave the time unchanged.
//
// Layout: magic, version, the directory's inode and mtime (ns), the
// sorted names of its .md files, CRC-32.
const (
	namesFile    = "names.bin"
	namesMagic   = "TDNM"
	namesVersion = 1
)

// issueFileNames returns the names of the .md files in the issues
// directory, sorted, from the names cache while the directory is the one
// it was made from.
func (s *Store) issueFileNames() ([]string, error) {
	dir := s.Path(IssuesDir)
	ino, mtime, ok := dirStamp(dir)
	if ok {
		if data, err := s.readCache(namesFile); err == nil {
			if cIno, cMtime, names, err := decodeNames(data); err == nil && cIno == ino && cMtime == mtime {
				return names, nil
			}
		}
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	all, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(all))
	for _, n := range all {
		if strings.HasSuffix(n, ".md") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	// The names describe the directory as it was at the first stamp only
	// if it did not change while it was read, and long enough ago that a
	// later change must move its time.
	if ok && mtime < racyCutoff() {
		if ino2, mtime2, ok2 := dirStamp(dir); ok2 && ino2 == ino && mtime2 == mtime {
			_ = writeCacheFile(s.Path(LocalDir, namesFile), encodeNames(ino, mtime, names))
		}
	}
	return names, nil
}

func encodeNames(ino, mtime int64, names []string) []byte {
	var w indexWriter
	w.b.WriteString(namesMagic)
	w.b.WriteByte(namesVersion)
	w.int(ino)
	w.int(mtime)
	w.uint(uint64(len(names)))
	for _, n := range names {
		w.str(n)
	}
	return w.seal()
}

func decodeNames(data []byte) (ino, mtime int64, names []string, err error) {
	r, err := openCache(data, namesMagic, namesVersion)
	if err != nil {
		return 0, 0, nil, err
	}
	ino, mtime = r.int(), r.int()
	n := r.uint()
	if n > uint64(len(r.s)) {
		return 0, 0, nil, errBadIndex
	}
	names = make([]string, 0, n)
	for range n {
		names = append(names, r.str())
	}
	if r.err != nil || r.off != len(r.s) {
		return 0, 0, nil, errBadIndex
	}
	return ino, mtime, names, nil
}
