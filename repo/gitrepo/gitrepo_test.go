package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
)

func TestInitCreatesARepositoryOnMain(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	head, err := os.ReadFile(filepath.Join(r.GitDir(), "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(head)); got != "ref: refs/heads/main" {
		t.Errorf("HEAD is %q, want ref: refs/heads/main", got)
	}
	if r.GitDir() != filepath.Join(r.Root(), ".git") {
		t.Errorf("GitDir %s, want %s", r.GitDir(), filepath.Join(r.Root(), ".git"))
	}
	if hasGit() {
		if got := strings.TrimSpace(runGit(t, r.Root(), "symbolic-ref", "HEAD")); got != "refs/heads/main" {
			t.Errorf("git symbolic-ref HEAD: %s", got)
		}
	}
}

func TestOpenWalksUpFromASubdirectory(t *testing.T) {
	r := newRepo(t)
	sub := filepath.Join(r.Root(), ".todos", "issues")
	os.MkdirAll(sub, 0o777)
	got, err := Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	if got.Root() != r.Root() || got.GitDir() != r.GitDir() {
		t.Errorf("Open(%s): root %s git dir %s, want %s and %s", sub, got.Root(), got.GitDir(), r.Root(), r.GitDir())
	}
	// A relative directory is resolved against the working directory.
	t.Chdir(sub)
	got, err = Open(".")
	if err != nil {
		t.Fatal(err)
	}
	if got.Root() != r.Root() {
		t.Errorf("Open(\".\") from %s: root %s", sub, got.Root())
	}
}

func TestOpenOutsideARepository(t *testing.T) {
	t.Parallel()
	_, err := Open(t.TempDir())
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Open outside a repository: %v, want ErrNotRepository", err)
	}
}

func TestOpenIgnoresAStrayDotGitDirectory(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	inner := filepath.Join(r.Root(), "vendor", "thing")
	os.MkdirAll(filepath.Join(inner, ".git"), 0o777)
	got, err := Open(inner)
	if err != nil {
		t.Fatal(err)
	}
	if got.Root() != r.Root() {
		t.Errorf("root %s, want the enclosing repository %s", got.Root(), r.Root())
	}
}

// TestOpenFollowsAGitFile moves the git directory away and leaves a .git
// file pointing to it, as git init --separate-git-dir does.
func TestOpenFollowsAGitFile(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	elsewhere := filepath.Join(t.TempDir(), "store.git")
	if err := os.Rename(r.GitDir(), elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Root(), ".git"), []byte("gitdir: "+elsewhere+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(r.Root(), "src")
	os.MkdirAll(sub, 0o777)
	got, err := Open(sub)
	if err != nil {
		t.Fatal(err)
	}
	if got.Root() != r.Root() || got.GitDir() != elsewhere {
		t.Fatalf("root %s git dir %s, want %s and %s", got.Root(), got.GitDir(), r.Root(), elsewhere)
	}
	writeFile(t, got, "src/a.go", "package a\n")
	if err := got.Stage("src/a.go"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, got, map[string]string{"src/a.go": "package a\n"})
	checkGit(t, got, "A  src/a.go\n", "src/a.go")

	os.WriteFile(filepath.Join(r.Root(), ".git"), []byte("nonsense\n"), 0o666)
	if _, err := Open(sub); err == nil || !strings.Contains(err.Error(), "gitdir") {
		t.Errorf("Open with a malformed .git file: %v", err)
	}
}

// TestLinkedWorktree stages in a work tree made by git worktree add: the
// index is the work tree's own, objects and config are shared.
func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	gitBinary(t)
	writeFile(t, r, "a.md", "a\n")
	if err := r.Stage("a.md"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	wtDir := filepath.Join(t.TempDir(), "wt")
	runGit(t, r.Root(), "worktree", "add", "-q", "-b", "feature", wtDir)

	w, err := Open(wtDir)
	if err != nil {
		t.Fatal(err)
	}
	if w.Root() != wtDir || !strings.HasPrefix(w.GitDir(), filepath.Join(r.GitDir(), "worktrees")) {
		t.Fatalf("root %s git dir %s", w.Root(), w.GitDir())
	}
	writeFile(t, w, "b.md", "b\n")
	writeFile(t, w, "a.md", "a, changed\n")
	if err := w.Stage("a.md", "b.md"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, w, map[string]string{"a.md": "a, changed\n", "b.md": "b\n"})
	checkGit(t, w, "M  a.md\nA  b.md\n", "a.md", "b.md")
	if out := runGit(t, r.Root(), "status", "--porcelain"); out != "" {
		t.Errorf("the main work tree changed:\n%s", out)
	}
	if err := w.SetConfigValue("merge", "td", "name", "td issue merge"); err != nil {
		t.Fatal(err)
	}
	if got := r.ConfigValue("merge", "td", "name"); got != "td issue merge" {
		t.Errorf("config set in the linked work tree is not shared: %q", got)
	}
}

func TestAuthorResolution(t *testing.T) {
	// Not parallel: it changes the environment and writes a home of its own.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	r := newRepo(t)
	global := filepath.Join(t.TempDir(), "global-config")
	t.Setenv("GIT_CONFIG_GLOBAL", global)

	if id, err := r.Author(); err != nil || id.String() != "Ada Lovelace <ada@example.com>" {
		t.Errorf("from the environment: %v, %v", id, err)
	}

	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	_, err := r.Author()
	if !errors.Is(err, ErrNoIdentity) || !strings.Contains(err.Error(), "user.name") {
		t.Errorf("with no identity: %v, want ErrNoIdentity telling how to set user.name", err)
	}

	os.WriteFile(global, []byte("[user]\n\tname = Global Name\n\temail = global@example.com\n"), 0o666)
	if id, _ := r.Author(); id != (Identity{"Global Name", "global@example.com"}) {
		t.Errorf("from GIT_CONFIG_GLOBAL: %v", id)
	}

	if err := r.SetConfigValue("user", "", "name", "Local Name"); err != nil {
		t.Fatal(err)
	}
	if id, _ := r.Author(); id != (Identity{"Local Name", "global@example.com"}) {
		t.Errorf("local name over global email: %v", id)
	}

	t.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
	if id, _ := r.Author(); id != (Identity{"Local Name", "env@example.com"}) {
		t.Errorf("environment email over config: %v", id)
	}
	t.Setenv("GIT_AUTHOR_EMAIL", "")

	// Without GIT_CONFIG_GLOBAL, ~/.gitconfig wins over the XDG file.
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	os.Remove(global)
	r.SetConfigValue("user", "", "name", "")
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o777)
	os.WriteFile(filepath.Join(home, ".config", "git", "config"), []byte("[user]\n\tname = XDG Name\n\temail = xdg@example.com\n"), 0o666)
	if id, _ := r.Author(); id != (Identity{"XDG Name", "xdg@example.com"}) {
		t.Errorf("from the XDG file: %v", id)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\temail = home@example.com\n"), 0o666)
	if id, _ := r.Author(); id != (Identity{"XDG Name", "home@example.com"}) {
		t.Errorf("~/.gitconfig over the XDG file: %v", id)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\temail = home@example.com\n[author]\n\tname = Author Name\n"), 0o666)
	if id, _ := r.Author(); id != (Identity{"Author Name", "home@example.com"}) {
		t.Errorf("author.name over user.name: %v", id)
	}
}

func TestConfigValueRoundTrip(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	const driver = `td merge-driver %O %A %B %P`
	if err := r.SetConfigValue("merge", "td", "driver", driver); err != nil {
		t.Fatal(err)
	}
	if err := r.SetConfigValue("merge", "td", "name", "td issue merge"); err != nil {
		t.Fatal(err)
	}
	if got := r.ConfigValue("merge", "td", "driver"); got != driver {
		t.Errorf("driver %q, want %q", got, driver)
	}
	if got := r.ConfigValue("Merge", "td", "DRIVER"); got != driver {
		t.Errorf("section and key names are not case-insensitive: %q", got)
	}
	if got := r.ConfigValue("merge", "TD", "driver"); got != "" {
		t.Errorf("subsection names are case-sensitive in git, got %q", got)
	}
	if got := r.ConfigValue("merge", "other", "driver"); got != "" {
		t.Errorf("unset key: %q", got)
	}
	// Replacing keeps one value.
	r.SetConfigValue("merge", "td", "driver", "td merge-driver --v2 %O %A %B %P")
	if got := r.ConfigValue("merge", "td", "driver"); got != "td merge-driver --v2 %O %A %B %P" {
		t.Errorf("after replacing: %q", got)
	}
	if _, err := os.Stat(filepath.Join(r.GitDir(), "config.lock")); !os.IsNotExist(err) {
		t.Error("config.lock left behind")
	}
	if err := r.SetConfigValue("merge", "td", "bad key", "x"); err == nil {
		t.Error("an invalid key name was accepted")
	}
	// go-git still opens the repository and git reads the values.
	if _, err := git.PlainOpen(r.Root()); err != nil {
		t.Fatal(err)
	}
	if hasGit() {
		if got := strings.TrimSpace(runGit(t, r.Root(), "config", "merge.td.driver")); got != "td merge-driver --v2 %O %A %B %P" {
			t.Errorf("git config merge.td.driver: %q", got)
		}
		if got := strings.TrimSpace(runGit(t, r.Root(), "config", "core.bare")); got != "false" {
			t.Errorf("git config core.bare: %q", got)
		}
	}
}

func TestSetConfigValueWaitsForConfigLock(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.locks.wait = 200 * time.Millisecond
	lock := filepath.Join(r.GitDir(), "config.lock")
	os.WriteFile(lock, nil, 0o666)
	err := r.SetConfigValue("merge", "td", "name", "x")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "config.lock") {
		t.Fatalf("SetConfigValue with config.lock present: %v", err)
	}
}
