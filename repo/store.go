// Package repo is td's store: it finds, loads, indexes, locks, writes and
// stages the files under .todos, and nothing else. Open, Update and Tx,
// atomic writes, the lock, the caches (index, children, names, ledger
// facts, git facts), IDs, session records and their runtime state, the
// write journal, the security log and git mode live here; no rule is
// decided and no command's words are written here. A use case with a cache
// of its own (claims' records, search's filters) keeps it under
// .todos/local through ReadCache and WriteCache, keyed by what it read.
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
//
// # Transactions
//
// Update is a transaction: the files it writes under .todos (issue files,
// ledgers, the security log, session files, config, anchors) land
// together or not at all, whether a write fails or the process is killed.
// It is a rollback journal, as SQLite's: before a transaction first
// touches a file it appends to .todos/local/tx-undo.jsonl, and syncs, a
// record of what the file was (its bytes, for a replace; its length, for
// an append; or that it did not exist). Then it writes the file as before
// (an atomic rename, or an appended line). Removing the undo log is the
// moment the transaction happens; only then is anything staged or
// committed. A failed write rolls every record back at once, newest
// first: replaced files get their old bytes by the same atomic rename,
// appended logs are cut back to their old length, new files removed.
//
// A crash leaves the undo log behind. The next td command finds it (Open
// costs one lstat for this) and rolls it back under the store lock before
// it reads anything, with a warning naming the files restored; what each
// held before it was restored (the killed command's writes, or a hand
// edit made since) is first copied under .todos/local/undone/<time>, so
// that nothing is lost unseen. Rolling back, not forward, because the
// killed command never said it succeeded, and because the one path serves
// a failed write and a crash alike, so every failure test exercises the
// crash path. Every step can be repeated: a crash while rolling back is
// rolled back again by the next command. A file the transaction never
// changed (its write failed) is left alone, so a roll back on a full disk
// needs no space. The order makes every crash point safe: a record is on
// disk before its file changes (a record cut short was never acted on and
// is ignored); a replace is a rename of a synced file, so a file is old or
// new, never torn; the log is removed only after every file is synced.
//
// An issue file over MaxIssueFileSize is refused in Tx.WriteFile, which
// every writer of issue files goes through (CLI, MCP, hooks), and the
// refusal undoes the transaction: td never writes what it will not read.
//
// Writing in place, not buffering until the end, keeps reads simple: a
// use case that reads what it wrote (the security log's hash chain, a new
// session, a new issue's ID) reads the files, as every other read does.
// The price is that a reader taking no lock can see a transaction half
// applied while it runs; a reader that starts while an undo log exists
// waits for the lock in Open, so it never reads a crashed transaction's
// half. fn's error is the command's answer, not an abort: what fn wrote
// before refusing (a security event recording why) lands with the
// refusal; only a failed write undoes the transaction.
//
// Local state under .todos/local (the runtime, caches, the ID sequence)
// is outside transactions: it is this checkout's, never committed, and
// rebuilt or re-read when lost.
package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tdproject/td/policy/domain"
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
	// Environ lists the environment as KEY=value, for the variables td
	// finds by prefix (TD_FEATURE_*); defaults to os.Environ.
	Environ func() []string
	// Progress, when set, hears how far a read of many issue files has
	// gone (the first command in a fresh clone reads them all): done of
	// total, about ten times a second, and done == total once at the end.
	// It is called from another goroutine than the command's, never from
	// two at once.
	Progress func(done, total int)
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	return o
}

// Store is an initialised .todos tree in a work tree.
type Store struct {
	Root   string // the work tree root (directory holding .todos)
	Dir    string // Root/.todos
	Config *Config

	opts    Options
	git     *gitrepo.Repo
	gitErr  error
	gitOpen bool
	// warnings is guarded by warnMu: a command may read caches on several
	// goroutines at once, and any read can warn.
	warnMu   sync.Mutex
	warnings []string

	actor string // the session CurrentSession found acting, for commit trailers
	// pendingDefault is the default session CurrentSession made for this
	// command and Update writes with its first change; nil once written.
	pendingDefault *Session

	gitFacts       *gitFacts
	gitFactsLoaded bool
	ledgers        ledgerCache
	runtimes       runtimeCache
	shared         sharedState // where the state every work tree shares lives (shared.go)

	branchOnce sync.Once
	branch     *BranchView // the branch as CI judges it (BranchView)
	branchErr  error

	actorsOnce sync.Once
	actors     map[domain.ActorKey][]string // session IDs by actor (SessionsOf)

	// faults, in tests only, fails or stops a transaction at a step
	// (stepUndo, stepWrite, ...) by returning an error or panicking.
	faults func(step, path string) error
	// appendWrite, in tests only, replaces the write of an appended line.
	appendWrite func(f *os.File, b []byte) (int, error)
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
	noConfig := "" // the nearest .todos without a config, if no parent has one
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
				if noConfig == "" {
					noConfig = todos
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if noConfig != "" {
		shown := filepath.Join(noConfig, ConfigFile)
		if r, err := filepath.Rel(abs, shown); err == nil {
			shown = filepath.ToSlash(r)
		}
		fix := "td init"
		if where := filepath.Dir(filepath.Dir(shown)); where != "." {
			fix = "td init in " + where
		}
		return nil, &Error{Code: CodeNotInitialized, Msg: fmt.Sprintf("%s is missing; restore it with git checkout -- %s, or run %s to write a new one (your issues stay)", shown, shown, fix), Err: ErrNotInitialized}
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
		if fi, err := os.Lstat(s.Path(d)); err == nil && !fi.IsDir() {
			return nil, s.dirError(s.Path(d), nil)
		}
	}
	if err := s.recoverLocked(); err != nil {
		return nil, err
	}
	for _, v := range UnknownFeatureVars(s.opts.Environ()) {
		s.warnf("%s names no feature td knows, so it is ignored; the known ones: %s", v, knownFeatureVars())
	}
	s.clearStaleGitLocks()
	return s, nil
}

// recoverLocked rolls back a transaction a td process left unfinished
// before anything reads the files it touched; a store with none costs one
// lstat. A transaction still running in another process holds the lock:
// waiting for it means this command reads what it wrote, whole.
func (s *Store) recoverLocked() error {
	if _, err := os.Lstat(s.undoPath()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.recover()
}

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.opts.Now().UTC().Truncate(time.Second) }

// Env reads an environment variable through the store's options.
func (s *Store) Env(key string) string { return s.opts.Env(key) }

// Warnings returns problems that did not stop the operation (a failed
// stage, for example), for the caller to show on stderr.
func (s *Store) Warnings() []string {
	s.warnMu.Lock()
	defer s.warnMu.Unlock()
	return s.warnings
}

// Warnf records a problem that did not stop the operation, for Warnings:
// a use case outside this package warns as the store's own code does, so
// the command shows every warning once, in the order they happened.
func (s *Store) Warnf(format string, args ...any) { s.warnf(format, args...) }

func (s *Store) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.warnMu.Lock()
	s.warnings = append(s.warnings, msg)
	s.warnMu.Unlock()
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
// land together or not at all (the undo log), and are staged or committed
// when it ends, as the git mode says.
type Tx struct {
	s       *Store
	written []string
	note    commitNote        // what the commit of git mode auto says
	before  map[string]string // meta paths' blobs before td wrote them (guard.go)
	undo    *undoLog          // nil until the first write
	failed  error             // the first write that failed: the transaction is undone
	git     txGit             // HEAD at the start and what was written, for git mode auto (autocommit.go)
	// afterCommit runs once the transaction has landed (not when it was
	// undone), in order: local bookkeeping that names what it wrote.
	afterCommit []func() error
	// named are the sessions the transaction's ledger lines and security
	// events name: each gets its identity file written into this work
	// tree, from the shared copy, when the branch lacks it (namedRecords).
	named []string
	// unsynced are files WriteMany wrote without a sync, and the
	// directories it made entries in: synced once before the commit.
	unsynced, unsyncedDirs []string
}

// Update runs fn holding the cross-process lock on .todos, then stages what
// fn wrote, or in git mode auto commits it. A failed stage or commit is a
// warning: the files are written and safe.
//
// fn's error is the command's answer, not an abort: what fn wrote before
// it refused (a security event recording why) lands with the refusal. A
// write that fails undoes every write of the transaction, whatever fn
// returns.
func (s *Store) Update(fn func(tx *Tx) error) error {
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.rel(s.Path(LocalDir)), err)
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	// A transaction a killed td left unfinished is undone before this one
	// reads anything.
	if err := s.recover(); err != nil {
		return err
	}
	// Another td process may have made this person's default session since
	// CurrentSession looked: the command acts as that one instead, so that
	// processes running for the first time at once agree on one.
	if se := s.pendingDefault; se != nil {
		if other, err := s.defaultSession(se.Author); err == nil && other != nil {
			*se = *other
			s.pendingDefault = nil
		}
	}
	// The write set: fn's writes, each after its undo record.
	tx := &Tx{s: s}
	if err := tx.beginGit(); err != nil {
		return err
	}
	ferr := fn(tx)
	if len(tx.written) > 0 && s.pendingDefault != nil && tx.failed == nil {
		if err := s.writePendingDefault(tx); err != nil && tx.failed == nil {
			tx.failed = err
		}
	}
	if len(tx.written) > 0 && tx.failed == nil {
		if err := tx.namedRecords(); err != nil && tx.failed == nil {
			tx.failed = err
		}
	}
	// One outcome: every write lands, or none does.
	if err := tx.settle(); err != nil {
		return err
	}
	for _, after := range tx.afterCommit {
		if err := after(); err != nil && ferr == nil {
			ferr = err
		}
	}
	// Stage or commit what landed.
	if len(tx.written) > 0 && s.Config.Git.Mode == GitModeAuto {
		blobs, cerr := s.commit(tx)
		s.journal(tx, blobs)
		if ferr == nil {
			ferr = cerr
		}
	} else if len(tx.written) > 0 {
		blobs, serr := s.stageSince(tx.git.head, tx.written)
		s.journal(tx, blobs)
		if ferr == nil {
			ferr = serr
		}
	}
	return ferr
}

// settle commits the transaction by removing its undo log, or, when a
// write failed (or the commit itself does), rolls every write back and
// returns why.
func (tx *Tx) settle() error {
	if tx.failed == nil {
		tx.failed = tx.syncBulk()
	}
	if tx.failed == nil {
		if tx.failed = tx.undo.commit(); tx.failed == nil {
			return nil
		}
	}
	tx.written = nil
	tx.git.contents = nil // nothing written stays, so nothing is committed
	if err := tx.undo.rollback(); err != nil {
		return fmt.Errorf("%w; undoing the transaction failed too: %v", tx.failed, err)
	}
	return tx.failed
}

// WriteFile atomically replaces a file under .todos (path elements relative
// to .todos) and records it for staging. An issue file over
// MaxIssueFileSize is refused here, the one place every entry point's
// writes pass (CLI, MCP, hooks): td would refuse to read it back.
func (tx *Tx) WriteFile(data []byte, elem ...string) error {
	return tx.record(opReplace, func(p string) error {
		if len(elem) == 2 && elem[0] == IssuesDir && len(data) > MaxIssueFileSize {
			id := strings.TrimSuffix(elem[1], ".md")
			return Errorf(CodeInvalid, "%s would be %d bytes, over the %d byte limit of an issue file; shorten its description or move the bulk into a file the issue links to", id, len(data), MaxIssueFileSize)
		}
		tx.remember(p, data)
		return writeFileAtomic(p, data)
	}, elem)
}

// AppendLine appends one line to an append-only log under .todos.
func (tx *Tx) AppendLine(line []byte, elem ...string) error {
	return tx.record(opAppend, func(p string) error {
		tx.remember(p, nil)
		warn, err := appendLine(p, line, tx.s.appendWrite)
		if warn != "" {
			tx.s.warnf("%s%s", tx.s.rel(p), warn)
		}
		return err
	}, elem)
}

// record makes the file's directory, writes the undo record, writes the
// file and remembers it for staging. After a failed write the transaction
// writes nothing more: Update undoes it.
func (tx *Tx) record(op string, write func(path string) error, elem []string) error {
	if tx.failed != nil {
		return tx.failed
	}
	p := tx.s.Path(elem...)
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	if err != nil {
		err = fmt.Errorf("create %s: %w", tx.s.rel(filepath.Dir(p)), err)
	}
	if err == nil {
		tx.noteBefore(p)
		err = tx.guard(p, op)
	}
	if err == nil {
		err = tx.s.fault(stepWrite, p)
	}
	if err == nil {
		err = write(p)
	}
	if err != nil {
		tx.failed = err
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

// stageSince stages what a transaction wrote, as stage does, unless a
// checkout moved HEAD since the transaction began (head): then what td
// wrote may hold the other branch's content, so nothing is staged, each
// file gets the checked-out version back (td's is saved under
// .todos/local/unsaved, as in git mode auto) and the error says so.
func (s *Store) stageSince(head *gitrepo.HeadState, paths []string) ([]gitrepo.StagedBlob, error) {
	if s.Config.Git.Mode == GitModeOff {
		return nil, nil
	}
	g, err := s.GitRepo()
	if err != nil {
		s.warnf("not staged: %v", err)
		return nil, nil
	}
	if g == nil {
		return nil, nil
	}
	defer s.takeGitWarnings(g)
	blobs, err := g.StageBlobsSince(head, gitPaths(g, paths)...)
	switch {
	case errors.Is(err, gitrepo.ErrHeadMoved):
		if saved := s.undoWrites(g, paths); len(saved) > 0 {
			return nil, &Error{Code: CodeConflict, Msg: fmt.Sprintf("not staged: %v; td's change to %s is saved under %s/%s/%s, and the work tree has the checked-out version again; nothing was staged", err, strings.Join(saved, " "), TodosDir, LocalDir, unsavedDir), Err: err}
		}
		return nil, &Error{Code: CodeConflict, Msg: fmt.Sprintf("not staged: %v; td's change is in the work tree, not staged", err), Err: err}
	case err != nil:
		s.warnf("written but not staged: %v", err)
		return nil, nil
	}
	return blobs, nil
}

// readLocal reads a small file under .todos/local, "" when absent.
func (s *Store) readLocal(name string) (string, error) {
	p := s.Path(LocalDir, filepath.FromSlash(name))
	if err := s.refuseLinks(p); err != nil {
		return "", err
	}
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
	if err := s.refuseLinks(p); err != nil {
		return err
	}
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
