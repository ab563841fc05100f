// Package repotest builds stores for the tests of td's use-case packages:
// a store without git in a temporary directory, or one in a real git
// repository with the git program to commit the way a user would. It is
// imported only by tests. The root repo package's own tests keep small
// copies of NewStore and GitStore (store_test.go, gitfacts_test.go):
// they are inside package repo, which this package imports, so they
// cannot import it back.
package repotest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/gitrepo"
)

// Clock is the time every test store starts at.
var Clock = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func identity(k string) string {
	switch k {
	case "GIT_AUTHOR_NAME":
		return "Op"
	case "GIT_AUTHOR_EMAIL":
		return "op@example.com"
	}
	return ""
}

// NewStore initialises a store without git in a temporary directory, its
// operator's git identity Op <op@example.com>.
func NewStore(t testing.TB) *repo.Store {
	t.Helper()
	dir := t.TempDir()
	opts := repo.Options{Now: func() time.Time { return Clock }, Env: identity}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Actor is the store's current session, created on first use: the
// operator's default session.
func Actor(t testing.TB, s *repo.Store) *repo.Session {
	t.Helper()
	se, _, err := s.CurrentSession("", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSession(); err != nil {
		t.Fatal(err)
	}
	return se
}

// GitStore is a store in a real git repository, with the git program to
// make commits the way a user (or td's commit hook) would.
type GitStore struct {
	T   *testing.T
	Dir string
	S   *repo.Store
	Env []string
}

// NewGitStore makes a git repository with td initialised in it; the test
// is skipped where the git program is not installed.
func NewGitStore(t *testing.T) *GitStore {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git program is not installed")
	}
	dir := t.TempDir()
	if _, err := gitrepo.Init(dir); err != nil {
		t.Fatal(err)
	}
	opts := repo.Options{Now: func() time.Time { return Clock }, Env: identity}
	if _, err := repo.Init(dir, repo.InitOptions{Options: opts}); err != nil {
		t.Fatal(err)
	}
	g := &GitStore{T: t, Dir: dir, Env: []string{
		"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Op", "GIT_AUTHOR_EMAIL=op@example.com",
		"GIT_COMMITTER_NAME=Op", "GIT_COMMITTER_EMAIL=op@example.com",
	}}
	g.Reopen()
	return g
}

// Reopen makes a fresh Store, as a new td process would.
func (g *GitStore) Reopen() {
	g.T.Helper()
	s, err := repo.Open(g.Dir, repo.Options{Now: func() time.Time { return Clock }, Env: identity})
	if err != nil {
		g.T.Fatal(err)
	}
	g.S = s
}

// Git runs the git program in the repository and returns its trimmed
// output, failing the test when git fails.
func (g *GitStore) Git(args ...string) string {
	g.T.Helper()
	out, err := g.TryGit(args...)
	if err != nil {
		g.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit runs the git program and returns its trimmed output and error.
func (g *GitStore) TryGit(args ...string) (string, error) {
	cmd := g.Command(args...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Command is the git program ready to run in the repository.
func (g *GitStore) Command(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.Dir, append(os.Environ(), g.Env...)
	return cmd
}

// Commit stages everything and commits it, returning the commit's hash.
func (g *GitStore) Commit(msg string) string {
	g.T.Helper()
	g.Git("add", "-A")
	g.Git("commit", "-q", "--allow-empty", "-m", msg)
	return g.Git("rev-parse", "HEAD")
}

// CommitAs commits everything as Commit does, under the git identity
// author ("Name <email>"): a sign-off is committed by whoever made it.
func (g *GitStore) CommitAs(author, msg string) string {
	g.T.Helper()
	g.Git("add", "-A")
	g.Git("-c", "user.name="+strings.TrimSpace(author[:strings.LastIndex(author, "<")]), "-c", "user.email="+strings.TrimSuffix(author[strings.LastIndex(author, "<")+1:], ">"),
		"commit", "-q", "--allow-empty", "--author", author, "-m", msg)
	return g.Git("rev-parse", "HEAD")
}

// Write writes a file of the work tree, relative to its root, making its
// directories.
func (g *GitStore) Write(rel, content string) {
	g.T.Helper()
	p := filepath.Join(g.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.T.Fatal(err)
	}
}

// NewAutoStore is NewGitStore with git.mode auto: td commits its own
// writes.
func NewAutoStore(t *testing.T) *GitStore {
	t.Helper()
	g := NewGitStore(t)
	cfg := filepath.Join(g.Dir, repo.TodosDir, repo.ConfigFile)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "mode: stage", "mode: auto", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Commit("set up td")
	g.Reopen()
	if g.S.Config.Git.Mode != repo.GitModeAuto {
		t.Fatalf("git mode %q", g.S.Config.Git.Mode)
	}
	return g
}

// BenchDir is where a test binary generates its shared benchmark
// repository: one directory per process, found again from the process ID,
// so that neither a package variable nor a second generation is needed.
// BenchMain removes it.
func BenchDir(prefix string) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("%s-%d", prefix, os.Getpid()))
}

// BenchMain runs a package's tests and benchmarks, then removes the
// benchmark repository BenchDir(prefix) holds: for TestMain.
func BenchMain(m *testing.M, prefix string) {
	code := m.Run()
	os.RemoveAll(BenchDir(prefix))
	os.Exit(code)
}

// GeneratedAuthor answers the git identity of the generated repository's
// author, for a Store's Env: gen.AuthorName and gen.AuthorEmail.
func GeneratedAuthor(key string) string {
	switch key {
	case "GIT_AUTHOR_NAME":
		return gen.AuthorName
	case "GIT_AUTHOR_EMAIL":
		return gen.AuthorEmail
	}
	return ""
}

// Generated returns the work tree of a repository of n generated issues
// under dir, generating it on first use: a marker file written after a
// complete generation lets later calls (benchmarks run one at a time)
// reuse it. The files are backdated an hour, as a real repository's were
// written long before td reads them: fresh ones sit in the caches' racy
// window, where td deliberately reads every file again.
func Generated(tb testing.TB, dir string, n int) string {
	tb.Helper()
	root := filepath.Join(dir, "repo")
	done := filepath.Join(dir, "generated")
	if _, err := os.Stat(done); err == nil {
		return root
	}
	if err := os.RemoveAll(dir); err != nil {
		tb.Fatal(err)
	}
	if err := gen.Generate(root, n); err != nil {
		tb.Fatalf("generate the benchmark repository: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(filepath.Join(root, repo.TodosDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return root
}
