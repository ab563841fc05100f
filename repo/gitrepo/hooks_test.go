package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHooksDir(t *testing.T) {
	// Not parallel: it writes a global configuration of its own.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	r := newRepo(t)
	if got, want := r.HooksDir(), filepath.Join(r.GitDir(), "hooks"); got != want {
		t.Errorf("default: %s, want %s", got, want)
	}
	if r.CommonDir() != r.GitDir() {
		t.Errorf("an ordinary clone's common dir %s is not its git dir %s", r.CommonDir(), r.GitDir())
	}
	// The global config applies when the repository's says nothing.
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = ~/githooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := r.HooksDir(), filepath.Join(home, "githooks"); got != want {
		t.Errorf("global ~/ path: %s, want %s", got, want)
	}
	// The repository's own setting wins; a relative path is taken from
	// the work tree root.
	if err := r.SetConfigValue("core", "", "hooksPath", ".githooks"); err != nil {
		t.Fatal(err)
	}
	if got, want := r.HooksDir(), filepath.Join(r.Root(), ".githooks"); got != want {
		t.Errorf("relative path: %s, want %s", got, want)
	}
	abs := filepath.Join(t.TempDir(), "hooks")
	if err := r.SetConfigValue("core", "", "hooksPath", abs); err != nil {
		t.Fatal(err)
	}
	if got := r.HooksDir(); got != abs {
		t.Errorf("absolute path: %s, want %s", got, abs)
	}
}

func TestHooksDirOfALinkedWorkTree(t *testing.T) {
	t.Parallel()
	gitBinary(t)
	r := newRepo(t)
	writeFile(t, r, "a", "a\n")
	runGit(t, r.Root(), "add", "a")
	runGit(t, r.Root(), "commit", "-q", "-m", "first")
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, r.Root(), "worktree", "add", "-q", wt)
	lr, err := Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lr.HooksDir(), filepath.Join(r.GitDir(), "hooks"); got != want {
		t.Errorf("linked work tree: %s, want the main clone's %s", got, want)
	}
	if lr.CommonDir() != r.GitDir() {
		t.Errorf("common dir %s, want %s", lr.CommonDir(), r.GitDir())
	}
}
