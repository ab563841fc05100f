package repo

import (
	"errors"
	"io/fs"
	"os"
)

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

// LoadAllStamped is LoadAll with the stamp of each issue's file, in the
// order of the issues.
func (s *Store) LoadAllStamped() ([]*Issue, []Stamp, []error, error) {
	entries, err := s.loadEntries()
	if err != nil {
		return nil, nil, nil, err
	}
	var issues []*Issue
	var stamps []Stamp
	var perrs []error
	for _, e := range entries {
		if e.err != nil {
			perrs = append(perrs, e.err)
			continue
		}
		issues = append(issues, e.issue)
		stamps = append(stamps, Stamp{e.size, e.mtime})
	}
	return issues, stamps, perrs, nil
}

// StampFiles stamps the named files of dir under .todos, in parallel, one
// system call each: a whole directory of ledgers costs what the issue
// files' check costs.
func (s *Store) StampFiles(dir string, names []string) []Stamp {
	out := make([]Stamp, len(names))
	root, err := os.OpenRoot(s.Path(dir))
	if err != nil {
		st := Stamp{Size: StampUnknown}
		if errors.Is(err, fs.ErrNotExist) {
			st.Size = StampAbsent
		}
		for i := range out {
			out[i] = st
		}
		return out
	}
	defer root.Close()
	f, err := root.Open(".")
	if err != nil {
		for i := range out {
			out[i] = Stamp{Size: StampUnknown}
		}
		return out
	}
	defer f.Close()
	fd := int(f.Fd())
	ForEach(len(names), IOWorkers(), 256, func(i int) {
		size, mtime, err := statAt(fd, root, names[i])
		switch {
		case err == nil:
			out[i] = Stamp{size, mtime}
		case errors.Is(err, fs.ErrNotExist):
			out[i] = Stamp{Size: StampAbsent}
		default:
			out[i] = Stamp{Size: StampUnknown}
		}
	})
	return out
}
