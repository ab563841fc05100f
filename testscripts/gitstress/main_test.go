// Package gitstress runs td processes against real git in ways a scenario
// cannot script: a person switching branches under two td processes in git
// mode auto, and td killed at random points of its writes. The tests skip
// in -short; environment variables make them larger (see each test).
package gitstress

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tdproject/td/cmd/command"
)

// TestMain runs td when the test binary is started under the name td, as
// the tests start it.
func TestMain(m *testing.M) {
	if command.StartedAsTD() {
		command.Exit()
	}
	os.Exit(m.Run())
}

// envInt reads a positive count from the environment, or def.
func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}

// world is a git repository with td in git mode auto, and the td program.
type world struct {
	t   *testing.T
	dir string
	td  string
	env []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("starts hundreds of processes")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git plays the person here")
	}
	bin := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	td := filepath.Join(bin, "td")
	if err := os.Symlink(exe, td); err != nil {
		t.Skip("cannot name the test binary td:", err)
	}
	dir := t.TempDir()
	home := t.TempDir()
	w := &world{t: t, dir: dir, td: td, env: append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Lead Operator", "GIT_AUTHOR_EMAIL=lead@example.com",
		"GIT_COMMITTER_NAME=Lead Operator", "GIT_COMMITTER_EMAIL=lead@example.com",
		"NO_COLOR=1", "TD_NOW=", "TD_RAND_SEED=",
	)}
	w.git("init", "-q", "-b", "main")
	w.mustTD("init")
	cfg := filepath.Join(dir, ".todos", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, bytes.Replace(data, []byte("mode: stage"), []byte("mode: auto"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "Track work with td, in auto mode")
	return w
}

// cmd is a command ready to run in the repository.
func (w *world) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir, c.Env = w.dir, w.env
	return c
}

// git runs git and returns its output, failing the test when it fails.
func (w *world) git(args ...string) string {
	w.t.Helper()
	out, err := w.cmd("git", args...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mustTD runs td and returns its standard output, failing the test when it
// fails.
func (w *world) mustTD(args ...string) string {
	w.t.Helper()
	c := w.cmd(w.td, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		w.t.Fatalf("td %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// inHistory reports whether some commit of rev's history changed the
// number of occurrences of text in path (git log -S).
func (w *world) inHistory(rev, path, text string) bool {
	out, err := w.cmd("git", "log", "--format=%h", "-S"+text, rev, "--", path).Output()
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// createIssue files an issue and returns its ID.
func (w *world) createIssue(title string) string {
	w.t.Helper()
	out := w.mustTD("create", title)
	id, ok := strings.CutPrefix(strings.Fields(out)[1], "")
	if !ok || !strings.HasPrefix(id, "td-") {
		w.t.Fatalf("td create printed %q", out)
	}
	return strings.TrimSuffix(id, ":")
}

// report logs a figure for the test's summary.
func (w *world) report(format string, args ...any) {
	w.t.Helper()
	w.t.Logf(format, args...)
}
