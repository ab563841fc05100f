package repo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/policy"
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

func claimsFrom(f policy.Facts, source string) []policy.Claim {
	var out []policy.Claim
	for _, c := range f.CreatorClaims {
		if c.Source == source {
			out = append(out, c)
		}
	}
	return out
}

// TestReviewFactsReadCommittedHistory checks that the commit that added an
// issue file is a creator claim, that Td-Session and Td-Action trailers
// make sessions involved and implementers, that the cache follows new
// commits, and that it forgets commits a reset took away.
func TestReviewFactsReadCommittedHistory(t *testing.T) {
	g := newGitStore(t)
	se := actor(t, g.s)
	is, err := createIssue(g.s, se, "Sign in")
	if err != nil {
		t.Fatal(err)
	}
	g.commit("File the sign-in work\n\nTd-Session: " + se.ID + "\nTd-Action: created")
	base := g.git("rev-parse", "HEAD")

	g.reopen()
	f, err := g.s.ReviewFacts(is, se)
	if err != nil {
		t.Fatal(err)
	}
	if got := claimsFrom(f, policy.SourceCommit); len(got) != 1 || got[0].Session != se.ID || got[0].Author != "Op <op@example.com>" {
		t.Fatalf("commit claims %+v, want one by %s, Op <op@example.com>", got, se.ID)
	}
	if _, err := os.Stat(filepath.Join(g.dir, ".todos", "local", gitFactsFile)); err != nil {
		t.Fatalf("the facts are not cached: %v", err)
	}

	// A worker's commit with trailers, touching only the ledger.
	if err := os.WriteFile(filepath.Join(g.dir, ".todos", "history", is.ID+".jsonl"),
		[]byte(`{"ts":"2026-11-21T10:00:00Z","session":"`+se.ID+`","action":"created","title":"Sign in"}`+"\n"+
			`{"ts":"2026-11-21T11:00:00Z","session":"ses_worker01","action":"commented","text":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.commit("Start the work\n\nTd-Session: ses_worker01\nTd-Action: started")
	g.reopen()
	f, err = g.s.ReviewFacts(is, se)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.ImplementationHistory, "ses_worker01") || !slices.Contains(f.Involved, "ses_worker01") {
		t.Fatalf("a started trailer did not count: implementation %v, involved %v", f.ImplementationHistory, f.Involved)
	}

	// A reset takes the worker's commit away: its facts must go too.
	g.git("reset", "-q", "--hard", base)
	g.reopen()
	f, err = g.s.ReviewFacts(is, se)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.ImplementationHistory, "ses_worker01") {
		t.Fatalf("facts from a commit no longer in history survived the reset: %v", f.ImplementationHistory)
	}
	if got := claimsFrom(f, policy.SourceCommit); len(got) != 1 {
		t.Fatalf("after the reset, commit claims %+v", got)
	}
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

// TestReviewFactsInAShallowClone checks that the policy's facts can be read
// in a shallow clone (CI, agents), that the boundary commit does not pose as
// the commit that added every file, and that deepening the clone brings the
// real one in.
func TestReviewFactsInAShallowClone(t *testing.T) {
	g := newGitStore(t)
	se := actor(t, g.s)
	is, err := createIssue(g.s, se, "Sign in")
	if err != nil {
		t.Fatal(err)
	}
	g.commit("File it\n\nTd-Session: " + se.ID)
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(filepath.Join(g.dir, "code.go"), []byte(fmt.Sprintf("package x // %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		g.commit(fmt.Sprintf("code %d\n\nTd-Session: ses_coder001", i))
	}
	clone := filepath.Join(t.TempDir(), "clone")
	g.git("clone", "-q", "--depth", "1", "file://"+g.dir, clone)
	vars := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	open := func() *Store {
		s, err := Open(clone, Options{Env: func(k string) string { return vars[k] }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	f, err := s.ReviewFacts(is, se)
	if err != nil {
		t.Fatalf("ReviewFacts in a shallow clone: %v", err)
	}
	if c := claimsFrom(f, policy.SourceCommit); len(c) != 0 {
		t.Fatalf("the boundary commit posed as the adding commit: %+v", c)
	}
	if slices.Contains(f.Involved, "ses_coder001") {
		t.Fatalf("the boundary commit's trailer made its session involved: %v", f.Involved)
	}
	cmd := exec.Command("git", "fetch", "-q", "--unshallow")
	cmd.Dir, cmd.Env = clone, append(os.Environ(), g.env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fetch --unshallow: %v\n%s", err, out)
	}
	f, err = open().ReviewFacts(is, se)
	if err != nil {
		t.Fatal(err)
	}
	if c := claimsFrom(f, policy.SourceCommit); len(c) != 1 || c[0].Session != se.ID {
		t.Fatalf("after deepening the clone, commit claims %+v, want the adding commit by %s", c, se.ID)
	}
}

func (g *gitStore) Write(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}
