package issues

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

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
	g := repotest.NewGitStore(t)
	se := repotest.Actor(t, g.S)
	is, err := Create(g.S, se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	g.Commit("File the sign-in work\n\nTd-Session: " + se.ID + "\nTd-Action: created")
	base := g.Git("rev-parse", "HEAD")

	g.Reopen()
	f, err := ReviewFacts(g.S, is, se)
	if err != nil {
		t.Fatal(err)
	}
	if got := claimsFrom(f, policy.SourceCommit); len(got) != 1 || got[0].Session != se.ID || got[0].Author != "Op <op@example.com>" {
		t.Fatalf("commit claims %+v, want one by %s, Op <op@example.com>", got, se.ID)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, ".todos", "local", "gitfacts.bin")); err != nil {
		t.Fatalf("the facts are not cached: %v", err)
	}

	// A worker's commit with trailers, touching only the ledger.
	if err := os.WriteFile(filepath.Join(g.Dir, ".todos", "history", is.ID+".jsonl"),
		[]byte(`{"ts":"2026-11-21T10:00:00Z","session":"`+se.ID+`","action":"created","title":"Sign in"}`+"\n"+
			`{"ts":"2026-11-21T11:00:00Z","session":"ses_worker01","action":"commented","text":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Commit("Start the work\n\nTd-Session: ses_worker01\nTd-Action: started")
	g.Reopen()
	f, err = ReviewFacts(g.S, is, se)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(f.ImplementationHistory, "ses_worker01") || !slices.Contains(f.Involved, "ses_worker01") {
		t.Fatalf("a started trailer did not count: implementation %v, involved %v", f.ImplementationHistory, f.Involved)
	}

	// A reset takes the worker's commit away: its facts must go too.
	g.Git("reset", "-q", "--hard", base)
	g.Reopen()
	f, err = ReviewFacts(g.S, is, se)
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

// TestReviewFactsInAShallowClone checks that the policy's facts can be read
// in a shallow clone (CI, agents), that the boundary commit does not pose as
// the commit that added every file, and that deepening the clone brings the
// real one in.
func TestReviewFactsInAShallowClone(t *testing.T) {
	g := repotest.NewGitStore(t)
	se := repotest.Actor(t, g.S)
	is, err := Create(g.S, se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	g.Commit("File it\n\nTd-Session: " + se.ID)
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(filepath.Join(g.Dir, "code.go"), []byte(fmt.Sprintf("package x // %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		g.Commit(fmt.Sprintf("code %d\n\nTd-Session: ses_coder001", i))
	}
	clone := filepath.Join(t.TempDir(), "clone")
	g.Git("clone", "-q", "--depth", "1", "file://"+g.Dir, clone)
	vars := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	open := func() *repo.Store {
		s, err := repo.Open(clone, repo.Options{Env: func(k string) string { return vars[k] }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	f, err := ReviewFacts(s, is, se)
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
	cmd.Dir, cmd.Env = clone, append(os.Environ(), g.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fetch --unshallow: %v\n%s", err, out)
	}
	f, err = ReviewFacts(open(), is, se)
	if err != nil {
		t.Fatal(err)
	}
	if c := claimsFrom(f, policy.SourceCommit); len(c) != 1 || c[0].Session != se.ID {
		t.Fatalf("after deepening the clone, commit claims %+v, want the adding commit by %s", c, se.ID)
	}
}
