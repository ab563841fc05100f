package web_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tdproject/td/cmd/command"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
)

// fixture is a git repository whose issues cover every page: an epic with
// children in every status, criteria, steps in a phase with a note, a
// claim, a comment, and a branch whose changes make a diff page.
type fixture struct {
	dir                         string
	epic, auth, closed, blocked string
	review, open                string
	// rng is the range of the branch's changes: "main..feature".
	rng string
}

var fixtureEnv = map[string]string{
	"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com",
	"GIT_COMMITTER_NAME": "Op", "GIT_COMMITTER_EMAIL": "op@example.com",
}

// td runs one td command line in dir and returns its standard output,
// failing the test when td fails.
func td(t testing.TB, dir string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return fixtureEnv[k] }
	if code := command.RunIn(dir, append([]string{"td"}, args...), strings.NewReader(""), &out, &errOut, getenv); code != 0 {
		t.Fatalf("td %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String()
}

func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	for k, v := range fixtureEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func create(t testing.TB, dir string, args ...string) string {
	t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal([]byte(td(t, dir, append([]string{"create", "--json"}, args...)...)), &v); err != nil || v.ID == "" {
		t.Fatalf("td create %v: no ID (%v)", args, err)
	}
	return v.ID
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git program is not installed")
	}
	f := &fixture{dir: t.TempDir(), rng: "main..feature"}
	d := f.dir
	git(t, d, "init", "-q", "-b", "main", ".")
	td(t, d, "init")
	f.epic = create(t, d, "Accounts", "--type", "epic", "-p", "P1",
		"--description", "Everything about **accounts**.\n\nSee <script>alert(1)</script> and ![logo](https://example.com/logo.png).")
	f.auth = create(t, d, "Sign in with GitHub", "-l", "auth", "-p", "P1")
	f.closed = create(t, d, "Pick an OAuth library")
	f.blocked = create(t, d, "Rate-limit the login endpoint", "-l", "auth")
	f.review = create(t, d, "Sign out everywhere")
	f.open = create(t, d, "Password reset", "--type", "feature")
	for _, c := range []string{f.auth, f.closed, f.blocked, f.review, f.open} {
		td(t, d, "link", c, "child_of", f.epic)
	}
	td(t, d, "todo", "add", "--issue", f.auth, "--kind", "criterion", "A user can sign in with GitHub")
	td(t, d, "todo", "add", "--issue", f.auth, "--kind", "criterion", "A failed sign-in says why")
	td(t, d, "todo", "set", "--issue", f.auth, "--phase", "Backend", "Register the OAuth app", "Write the callback", "Test against a fake provider")
	td(t, d, "start", f.auth)
	td(t, d, "todo", "done", "--issue", f.auth, "Register the OAuth app")
	td(t, d, "todo", "note", "--issue", f.auth, "callback", "the state parameter must be verified")
	td(t, d, "comment", f.auth, "GitHub's app settings are in the team vault")
	td(t, d, "close", f.closed, "--reason", "chosen: the standard library's")
	td(t, d, "block", f.blocked, "--reason", "waits for the gateway")
	td(t, d, "start", f.review)
	td(t, d, "review", f.review)
	git(t, d, "add", "-A")
	git(t, d, "commit", "-q", "-m", "Accounts epic and its children")
	git(t, d, "checkout", "-q", "-b", "feature")
	td(t, d, "todo", "done", "--issue", f.auth, "Write the callback")
	td(t, d, "todo", "done", "--issue", f.auth, "A user can sign in")
	git(t, d, "add", "-A")
	git(t, d, "commit", "-q", "-m", "The callback, and GitHub sign-in works")
	return f
}

// store opens the fixture's store as td would.
func (f *fixture) store(t testing.TB) *repo.Store {
	t.Helper()
	s, err := repo.Open(f.dir, repo.Options{Env: func(k string) string { return fixtureEnv[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// boardFilter is the board of every issue, as td board shows it.
func boardFilter() board.Filter { return board.Filter{} }
