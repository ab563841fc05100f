package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// gitDirName is the name of the git directory (or file) in a work tree.
const gitDirName = ".git"

// ErrNotRepository is wrapped by the error Open returns when no git work tree
// contains the directory.
var ErrNotRepository = errors.New("not inside a git work tree")

// ErrUnsupportedFormat is wrapped by the error Open returns for a repository
// whose object format td cannot write (SHA-256): td refuses it before
// writing anything, since SHA-1 objects there would be garbage to git.
var ErrUnsupportedFormat = errors.New("unsupported object format")

// formatError names the repository and its object format.
type formatError struct{ root, format string }

func (e *formatError) Error() string {
	name := strings.ToUpper(e.format)
	if e.format == "sha256" {
		name = "SHA-256"
	}
	return fmt.Sprintf("the git repository uses %s object names (extensions.objectFormat = %s), and td reads and writes SHA-1 ones only, so it wrote nothing", name, e.format)
}

func (e *formatError) Is(target error) bool { return target == ErrUnsupportedFormat }

// Repo is a git repository with a work tree, opened through go-git.
//
// A Repo may be used from several goroutines. Stage calls on one Repo are
// serialised in process; calls from different Repo values or processes are
// serialised by git's index.lock.
type Repo struct {
	root      string // absolute work tree root
	gitDir    string // the work tree's git directory (holds index and HEAD)
	commonDir string // the repository's shared directory (objects, config)
	storage   *filesystem.Storage

	stageMu sync.Mutex // serialises Stage, and with it the use of storage

	// packIndexes are the pack indexes decoded so far, by path, guarded
	// by stageMu: each names its pack by checksum and never changes.
	packIndexes map[string]*idxfile.MemoryIndex

	// bigTrees are the large tree objects read so far, by object name,
	// guarded by stageMu: td check --base reads a directory of 100,000
	// issue files to compare it and again to look names up in it.
	bigTrees map[plumbing.Hash][]byte

	fileModeOnce sync.Once
	fileMode     bool

	locks lockSet // the git lock files this Repo holds (lock.go)

	blobWriters zlibWriters // zlib writers for blobs, reused (zlib.go)
	// objectDirs are the objects/xx directories known to exist.
	objectDirs sync.Map
}

// Open finds the git work tree containing dir, walking up through its
// parents, and opens it. A .git file pointing elsewhere, as in linked work
// trees and submodules, is followed. It returns an error wrapping
// ErrNotRepository when there is none.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open git repository at %s: %w", dir, err)
	}
	root, gitDir, err := findGitDir(abs)
	if err != nil {
		return nil, err
	}
	return openAt(root, gitDir)
}

// Init creates a git repository with a work tree in dir, whose default branch
// is main, and opens it. dir is created when missing.
func Init(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init git repository at %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o777); err != nil {
		return nil, fmt.Errorf("init git repository: %w", err)
	}
	gitDir := filepath.Join(abs, gitDirName)
	if isGitDir(gitDir) {
		return nil, fmt.Errorf("init git repository at %s: a repository already exists", abs)
	}
	// The storage layer creates objects/ and refs/; HEAD and the config of a
	// repository with a work tree are written here, as git init writes them.
	st := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
	if err := st.Init(); err != nil {
		return nil, fmt.Errorf("init git repository at %s: %w", abs, err)
	}
	if err := st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("main"))); err != nil {
		return nil, fmt.Errorf("init git repository at %s: %w", abs, err)
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte(config), 0o644); err != nil {
		return nil, fmt.Errorf("init git repository at %s: %w", abs, err)
	}
	return openAt(abs, gitDir)
}

// Root returns the absolute path of the work tree root.
func (r *Repo) Root() string { return r.root }

// GitDir returns the absolute path of the work tree's git directory: .git for
// an ordinary clone, .git/worktrees/<name> of the main clone for a linked work
// tree.
func (r *Repo) GitDir() string { return r.gitDir }

// findGitDir walks up from dir to the first directory holding a .git
// directory or a .git file, and returns that directory and the git directory
// it designates.
func findGitDir(dir string) (root, gitDir string, err error) {
	for cur := dir; ; {
		candidate := filepath.Join(cur, gitDirName)
		fi, err := os.Stat(candidate)
		switch {
		case err == nil && fi.IsDir():
			if isGitDir(candidate) {
				return cur, candidate, nil
			}
		case err == nil && fi.Mode().IsRegular():
			target, err := readGitFile(candidate)
			if err != nil {
				return "", "", err
			}
			return cur, target, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", "", fmt.Errorf("look for a git repository at %s: %w", cur, err)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", "", fmt.Errorf("%w: %s", ErrNotRepository, dir)
		}
		cur = parent
	}
}

// isGitDir reports whether dir looks like a git directory: git itself requires
// HEAD, and objects and refs are checked here too so that a stray .git
// directory is not mistaken for a repository.
func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	common := dir
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common = resolveFrom(dir, strings.TrimSpace(string(b)))
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a .git file of the form "gitdir: <path>" and returns the
// absolute git directory it names.
func readGitFile(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read git file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", fmt.Errorf("%s is not a valid git file: it lacks a \"gitdir: <path>\" line", file)
	}
	target = resolveFrom(filepath.Dir(file), target)
	if !isGitDir(target) {
		return "", fmt.Errorf("%s points to %s, which is not a git directory", file, target)
	}
	return target, nil
}

// resolveFrom makes p absolute relative to base.
func resolveFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// openAt opens the repository whose work tree is root and git directory is
// gitDir, following gitDir/commondir for linked work trees.
func openAt(root, gitDir string) (*Repo, error) {
	commonDir := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = resolveFrom(gitDir, strings.TrimSpace(string(b)))
	}
	dotFS := osfs.New(gitDir)
	var repoFS = dotFS
	if commonDir != gitDir {
		repoFS = dotgit.NewRepositoryFilesystem(dotFS, osfs.New(commonDir))
	}
	st := filesystem.NewStorage(repoFS, cache.NewObjectLRUDefault())
	r := &Repo{root: root, gitDir: gitDir, commonDir: commonDir, storage: st}
	r.locks.dir = commonDir
	if f := strings.ToLower(strings.TrimSpace(r.ConfigValue("extensions", "", "objectformat"))); f != "" && f != "sha1" {
		return nil, &formatError{root: root, format: f}
	}
	return r, nil
}
