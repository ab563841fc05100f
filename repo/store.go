// Package repo is td's store: it finds, loads, indexes, locks, writes and
// stages the files under .todos, and nothing else. Open, Update and Tx,
// atomic writes, the lock, the caches (index, ledger facts, git facts), IDs,
// session records and their runtime state, the write journal, the security
// log and git mode live here; no rule is decided and no command's words are
// written here.
//
// Use cases live in one package per concern, each a set of functions
// taking the store and a plain request and returning a structured result:
//
//	repo/issues    create, edit, comment, the workflow and review policy
//	repo/links     links between issues, ready, children
//	repo/todos     the checklist, subagent proposals, anchors
//	repo/sessions  bind, lifecycle, context, send, the commit guard, git hooks
//	repo/review    td check, td diff, td log, td audit verify
//	repo/harness   what every agent harness shares; one package per harness
//	               under it (repo/harness/claude)
//
// They import repo, policy, markdown and audit, and each other only
// downward in that list (links ← issues ← todos ← sessions; review uses
// issues); repo imports none of them. A new capability goes into the
// package of its concern, or a new one beside them; a new rule goes into
// policy; the store grows only when a new kind of file appears. repo/gitrepo
// is td's git, repotest builds stores for tests, and repo/bench times the
// store and the use cases on a generated 10,000-issue repository.
package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tdproject/td/repo/gitrepo"
)

// Names of the files and directories under .todos.
const (
	TodosDir       = ".todos"
	ConfigFile     = "config.yaml"
	IssuesDir      = "issues"
	HistoryDir     = "history"
	SessionsDir    = "sessions"
	LocalDir       = "local"
	SecurityEvents = "security_events.jsonl"
	AnchorsFile    = "anchors.md"
)

// Options configures a Store. The zero value uses the real clock and the
// process environment.
type Options struct {
	Now func() time.Time        // defaults to time.Now
	Env func(key string) string // defaults to os.Getenv
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Env == nil {
		o.Env = os.Getenv
	}
	return o
}

// Store is an initialised .todos tree in a work tree.
type Store struct {
	Root   string // the work tree root (directory holding .todos)
	Dir    string // Root/.todos
	Config *Config

	opts     Options
	git      *gitrepo.Repo
	gitErr   error
	gitOpen  bool
	warnings []string

	actor string // the session CurrentSession found acting, for commit trailers

	gitFacts       *gitFacts
	gitFactsLoaded bool
	ledgers        ledgerCache
}

// ErrNotInitialized is wrapped by Open when no .todos directory is found.
var ErrNotInitialized = errors.New("td is not initialised")

// Open finds the .todos directory in dir or the nearest parent and loads
// its config.
func Open(dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; {
		todos := filepath.Join(d, TodosDir)
		if fi, err := os.Lstat(todos); err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				return nil, &Error{Code: CodeRefused, Msg: fmt.Sprintf("%s is a symlink; td does not follow symlinks under .todos", todos), Err: errSymlink}
			}
			if fi.IsDir() {
				if _, err := os.Lstat(filepath.Join(todos, ConfigFile)); err == nil {
					return openAt(d, opts)
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return nil, &Error{Code: CodeNotInitialized, Msg: "no .todos directory here or in any parent; run td init at the root of your repository", Err: ErrNotInitialized}
}

func openAt(root string, opts Options) (*Store, error) {
	s := &Store{Root: root, Dir: filepath.Join(root, TodosDir), opts: opts.withDefaults()}
	data, err := readRegular(s.Path(ConfigFile), 1<<20)
	if err != nil {
		return nil, s.FileError(s.Path(ConfigFile), err)
	}
	cfg, err := ParseConfig(s.rel(s.Path(ConfigFile)), data)
	if err != nil {
		return nil, err
	}
	s.Config = cfg
	for _, d := range []string{IssuesDir, HistoryDir, SessionsDir, LocalDir} {
		if err := refuseSymlink(s.Path(d)); err != nil {
			return nil, err
		}
	}
	s.clearStaleGitLocks()
	return s, nil
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.opts.Now().UTC().Truncate(time.Second) }

// Env reads an environment variable through the store's options.
func (s *Store) Env(key string) string { return s.opts.Env(key) }

// Warnings returns problems that did not stop the operation (a failed
// stage, for example), for the caller to show on stderr.
func (s *Store) Warnings() []string { return s.warnings }

// Warnf records a problem that did not stop the operation, for Warnings:
// a use case outside this package warns as the store's own code does, so
// the command shows every warning once, in the order they happened.
func (s *Store) Warnf(format string, args ...any) { s.warnf(format, args...) }

func (s *Store) warnf(format string, args ...any) {
	s.warnings = append(s.warnings, fmt.Sprintf(format, args...))
}

// path joins elements under .todos.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.Dir}, elem...)...)
}

// rel returns p relative to the work tree root, slash-separated, for messages.
func (s *Store) rel(p string) string {
	if r, err := filepath.Rel(s.Root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// fileError turns an I/O error on a file into one sentence naming the file.
func (s *Store) FileError(path string, err error) error {
	var r *refusal
	if errors.As(err, &r) {
		return &Error{Code: CodeRefused, Msg: s.rel(path) + " " + r.reason, Err: r.err}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Code: CodeNotFound, Msg: s.rel(path) + " does not exist", Err: err}
	}
	return fmt.Errorf("%s: %w", s.rel(path), err)
}

// repo opens the git repository lazily; nil when the tree is not in git.
func (s *Store) GitRepo() (*gitrepo.Repo, error) {
	if !s.gitOpen {
		s.gitOpen = true
		s.git, s.gitErr = gitrepo.Open(s.Root)
		if errors.Is(s.gitErr, gitrepo.ErrNotRepository) {
			s.git, s.gitErr = nil, nil
		}
		if s.git != nil && s.git.ClearStaleLocks() > 0 {
			s.takeGitWarnings(s.git)
		}
	}
	return s.git, s.gitErr
}

// Tx is a read-modify-write under the store lock. Files written through it
// are staged or committed when it ends, as the git mode says.
type Tx struct {
	s       *Store
	written []string
	note    commitNote        // what the commit of git mode auto says
	before  map[string]string // meta paths' blobs before td wrote them (guard.go)
	git     txGit             // HEAD at the start and what was written, for git mode auto (autocommit.go)
}

// Update runs fn holding the cross-process lock on .todos, then stages what
// fn wrote, or in git mode auto commits it. A failed stage or commit is a
// warning: the files are written and safe.
func (s *Store) Update(fn func(tx *Tx) error) error {
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.rel(s.Path(LocalDir)), err)
	}
	unlock, err := lockFile(s.Path(LocalDir, "lock"))
	if err != nil {
		return err
	}
	tx := &Tx{s: s}
	if err := tx.beginGit(); err != nil {
		unlock()
		return err
	}
	ferr := fn(tx)
	if len(tx.written) > 0 && s.Config.Git.Mode == GitModeAuto {
		blobs, cerr := s.commit(tx)
		s.journal(tx, blobs)
		if ferr == nil {
			ferr = cerr
		}
	} else if len(tx.written) > 0 {
		s.journal(tx, s.stage(tx.written))
	}
	unlock()
	return ferr
}

// WriteFile atomically replaces a file under .todos (path elements relative
// to .todos) and records it for staging.
func (tx *Tx) WriteFile(data []byte, elem ...string) error {
	return tx.record(func(p string) error { tx.remember(p, data); return writeFileAtomic(p, data) }, elem)
}

// AppendLine appends one line to an append-only log under .todos.
func (tx *Tx) AppendLine(line []byte, elem ...string) error {
	return tx.record(func(p string) error { tx.remember(p, nil); return appendLine(p, line) }, elem)
}

// record makes the file's directory, writes it and remembers it for staging.
func (tx *Tx) record(write func(path string) error, elem []string) error {
	p := tx.s.Path(elem...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", tx.s.rel(filepath.Dir(p)), err)
	}
	tx.noteBefore(p)
	if err := write(p); err != nil {
		return err
	}
	tx.written = append(tx.written, p)
	return nil
}

// stage stages the given absolute paths unless git.mode is off, and
// returns the blobs it recorded, for the journal td guard reads. Failures
// become warnings.
func (s *Store) stage(paths []string) []gitrepo.StagedBlob {
	if s.Config.Git.Mode == GitModeOff {
		return nil
	}
	g, err := s.GitRepo()
	if err != nil {
		s.warnf("not staged: %v", err)
		return nil
	}
	if g == nil {
		return nil
	}
	blobs, err := g.StageBlobs(gitPaths(g, paths)...)
	s.takeGitWarnings(g)
	if err != nil {
		s.warnf("written but not staged: %v", err)
		return nil
	}
	return blobs
}

// readLocal reads a small file under .todos/local, "" when absent.
func (s *Store) readLocal(name string) (string, error) {
	p := s.Path(LocalDir, filepath.FromSlash(name))
	data, err := readRegular(p, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", s.FileError(p, err)
	}
	return strings.TrimSpace(string(data)), nil
}

// ReadLocal reads a small file under .todos/local ("" when absent): state
// of this checkout alone, never committed. name is slash-separated and
// relative to .todos/local; the caller makes sure it stays inside.
func (s *Store) ReadLocal(name string) (string, error) { return s.readLocal(name) }

// WriteLocal atomically writes a file under .todos/local, creating its
// directory; it is never staged. name is as for ReadLocal.
func (s *Store) WriteLocal(name, content string) error { return s.writeLocal(name, content) }

// writeLocal writes a file under .todos/local (never staged).
func (s *Store) writeLocal(name, content string) error {
	p := s.Path(LocalDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(p, []byte(content))
}

// ids returns the ID source: crypto/rand, or the seeded test sequence when
// TD_RAND_SEED is set. The caller holds the lock in seeded mode.
func (s *Store) IDs() idSource {
	seed := s.Env("TD_RAND_SEED")
	if seed == "" {
		return idSource{}
	}
	return idSource{seed: seed, next: func() (uint64, error) {
		cur, err := s.readLocal("rand-seq")
		if err != nil {
			return 0, err
		}
		n, _ := strconv.ParseUint(cur, 10, 64)
		return n, s.writeLocal("rand-seq", strconv.FormatUint(n+1, 10))
	}}
}
