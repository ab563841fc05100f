package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tdproject/td/repo/gitrepo"
)

// SharedDirName is the directory td keeps in the git repository's common
// directory (git rev-parse --git-common-dir) for the state every work
// tree of a clone shares, as the claims under refs/td/claims are shared:
//
//	sessions/<id>.json        a session's runtime: lifecycle state, bound issue, counters
//	sessions/<id>.flock       the lock of its read-modify-writes
//	sessions/<id>.yaml        a copy of its identity file, for work trees whose branch lacks it
//	default-sessions.json     each person's default session in this clone, by git identity
//	sessions.flock            the lock of default-sessions.json
//
// A session started in one work tree (td send in the main checkout) is
// found in another (the agent's), bound to the same issue, and its
// identity file is written into the other work tree with the first change
// it makes there, so that the branch it acts on carries it. A .todos that
// is not at the root of its work tree keeps its shared state under
// td/in/<path>. Outside git there is one work tree, and the shared state
// is .todos/local itself. What stays per work tree is what must: the
// caches of its files, its current session (td session use), its
// harness links.
const SharedDirName = "td"

// sharedState is where the Store found the shared directory.
type sharedState struct {
	once   sync.Once
	dir    string // absolute; .todos/local outside git
	common string // the git common directory, "" outside git
}

// sharedDir returns the directory of the state every work tree of this
// clone shares.
func (s *Store) sharedDir() string {
	st := &s.shared
	st.once.Do(func() {
		st.dir = s.Path(LocalDir)
		root, common, err := gitrepo.Locate(s.Root)
		if err != nil {
			return
		}
		rel, err := filepath.Rel(root, s.Root)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return
		}
		d := filepath.Join(common, SharedDirName)
		if rel != "." {
			d = filepath.Join(d, "in", rel)
		}
		st.dir, st.common = d, common
	})
	return st.dir
}

// sharedInGit reports whether the shared state lives in the git common
// directory, apart from this work tree's .todos/local.
func (s *Store) sharedInGit() bool {
	s.sharedDir()
	return s.shared.common != ""
}

// SharedPath joins a slash-separated name under the shared directory.
func (s *Store) SharedPath(name string) string {
	return filepath.Join(s.sharedDir(), filepath.FromSlash(name))
}

// legacyPath is where a td that kept this state per work tree wrote name:
// under .todos/local. It is read when the shared file is missing, and
// the next write moves it.
func (s *Store) legacyPath(name string) string {
	return s.Path(LocalDir, filepath.FromSlash(name))
}

// shown is a path for messages: from the work tree root when it is
// inside it, else absolute (the common directory of a linked work tree).
func (s *Store) shown(p string) string {
	if r, err := filepath.Rel(s.Root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return p
}

// refuseSharedLinks fails when p, or a directory between the common
// directory and p, is a symlink, as refuseLinks does under .todos.
func (s *Store) refuseSharedLinks(p string) error {
	if r, err := filepath.Rel(s.Dir, p); !s.sharedInGit() || err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return s.refuseLinks(p)
	}
	rel, err := filepath.Rel(s.shared.common, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside %s", p, s.shared.common)
	}
	d := s.shared.common
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, elem)
		fi, err := os.Lstat(d)
		if err != nil {
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &Error{Code: CodeRefused, Msg: fmt.Sprintf("%s is a symlink; td does not follow symlinks in its own state: remove the link and run the command again", s.shown(d)), Err: errSymlink}
		}
	}
	return nil
}

// readSharedFile reads a small file at p ("" when absent), refusing links.
func (s *Store) readSharedFile(p string) (string, bool, error) {
	if err := s.refuseSharedLinks(p); err != nil {
		return "", false, err
	}
	data, err := readRegular(p, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		var r *refusal
		if errors.As(err, &r) {
			return "", false, &Error{Code: CodeRefused, Msg: s.shown(p) + " " + r.reason, Err: r.err}
		}
		return "", false, fmt.Errorf("%s: %w", s.shown(p), err)
	}
	return strings.TrimSpace(string(data)), true, nil
}

// writeSharedFile atomically writes p, making its directory; durable
// syncs it first.
func (s *Store) writeSharedFile(p string, data []byte, durable bool) error {
	if err := s.refuseSharedLinks(p); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.shown(filepath.Dir(p)), err)
	}
	if durable {
		return writeFileAtomic(p, data)
	}
	return writeCacheFile(p, data)
}

// lockShared takes the lock of the shared sessions state
// (default-sessions.json): every work tree of the clone takes the same
// one. It is not the store lock, which is per work tree and may be held
// already.
func (s *Store) lockShared() (unlock func(), err error) {
	p := s.SharedPath("sessions" + s.lockSuffix())
	if err := s.refuseSharedLinks(p); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.shown(filepath.Dir(p)), err)
	}
	return lockFile(p)
}

// lockSuffix ends the names of td's lock files in the shared directory:
// .flock in the git directory, where a name ending in .lock is git's
// sign of a lock held (td's lock files stay, locked or not: the lock is
// the kernel's, on the open file), .lock under .todos/local as it always
// was.
func (s *Store) lockSuffix() string {
	if s.sharedInGit() {
		return ".flock"
	}
	return ".lock"
}

// sharedRecordName is the shared copy of a session's identity file.
func sharedRecordName(id string) string { return "sessions/" + id + ".yaml" }

// shareRecord keeps a copy of a session's identity file in the shared
// directory, so that every work tree of the clone finds the session
// before its branch has the file. Written once: an existing copy stays.
func (s *Store) shareRecord(id string, data []byte) error {
	if !s.sharedInGit() {
		return nil
	}
	p := s.SharedPath(sharedRecordName(id))
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	return s.writeSharedFile(p, data, true)
}

// sharedRecord reads the shared copy of a session's identity file; nil
// when there is none.
func (s *Store) sharedRecord(id string) ([]byte, string, error) {
	if !s.sharedInGit() {
		return nil, "", nil
	}
	p := s.SharedPath(sharedRecordName(id))
	if err := s.refuseSharedLinks(p); err != nil {
		return nil, p, err
	}
	data, err := readRegular(p, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, p, nil
	}
	if err != nil {
		return nil, p, fmt.Errorf("%s: %w", s.shown(p), err)
	}
	return data, p, nil
}

// SharedSessionIDs lists the sessions of this clone whose identity file
// this work tree does not have yet (started in another work tree, on a
// branch not merged here), sorted.
func (s *Store) SharedSessionIDs() []string {
	if !s.sharedInGit() {
		return nil
	}
	ents, _ := os.ReadDir(s.SharedPath("sessions")) // unreadable: none to add
	var out []string
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok || !ValidSessionID(id) || !e.Type().IsRegular() {
			continue
		}
		if _, err := os.Lstat(s.Path(SessionsDir, e.Name())); errors.Is(err, fs.ErrNotExist) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
