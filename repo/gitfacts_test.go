package repo

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo/gitrepo"
)

// gitStore is a store in a real git repository, with the git program to
// make commits the way a user (or td's commit hook) would.
type gitStore struct {
	t   *testing.T
	dir string
	s   *Store
	env []string
}

func newGitStore(t *testing.T) *gitStore {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git program is not installed")
	}
	dir := t.TempDir()
	if _, err := gitrepo.Init(dir); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	opts := Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		Env: func(k string) string { return vars[k] },
	}
	if _, err := Init(dir, InitOptions{Options: opts}); err != nil {
		t.Fatal(err)
	}
	g := &gitStore{t: t, dir: dir, env: []string{
		"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Op", "GIT_AUTHOR_EMAIL=op@example.com",
		"GIT_COMMITTER_NAME=Op", "GIT_COMMITTER_EMAIL=op@example.com",
	}}
	g.reopen()
	return g
}

// reopen makes a fresh Store, as a new td process would.
func (g *gitStore) reopen() {
	g.t.Helper()
	vars := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	s, err := Open(g.dir, Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		Env: func(k string) string { return vars[k] },
	})
	if err != nil {
		g.t.Fatal(err)
	}
	g.s = s
}

func (g *gitStore) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.dir, append(os.Environ(), g.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (g *gitStore) commit(msg string) string {
	g.t.Helper()
	g.git("add", "-A")
	g.git("commit", "-q", "--allow-empty", "-m", msg)
	return g.git("rev-parse", "HEAD")
}

func TestGitFactsCacheRoundTripAndCorruption(t *testing.T) {
	f := &gitFacts{
		Head: "d7d109ba7fa21ce2dd47c1ab65b05d3549f460c0",
		Seen: []string{"d7d109ba7fa21ce2dd47c1ab65b05d3549f460c0", "0123456789abcdef0123456789abcdef01234567"},
		Issues: map[string]*IssueGit{
			"td-aaaaaa": {AddedBy: "Op <op@example.com>", AddedSession: "ses_a", AddedAt: time.Unix(1795000000, 0).UTC(),
				Sessions: []string{"ses_a", "ses_w"}, Implementers: []string{"ses_w"}},
			"td-bbbbbb": {},
		},
	}
	data := encodeGitFacts(f)
	got, err := decodeGitFacts(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != f.Head || !slices.Equal(got.Seen, f.Seen) || len(got.Issues) != 2 {
		t.Fatalf("round trip: %+v", got)
	}
	if a := got.Issues["td-aaaaaa"]; a.AddedBy != "Op <op@example.com>" || a.AddedSession != "ses_a" ||
		!a.AddedAt.Equal(f.Issues["td-aaaaaa"].AddedAt) || !slices.Equal(a.Implementers, []string{"ses_w"}) {
		t.Fatalf("round trip of td-aaaaaa: %+v", a)
	}
	for i := range data {
		bad := append([]byte{}, data...)
		bad[i] ^= 0x20
		if _, err := decodeGitFacts(bad); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
}
