package repo

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
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
	if got.Head != f.Head || !slices.Equal(got.Seen, f.Seen) || !slices.Equal(got.ids(), []string{"td-aaaaaa", "td-bbbbbb"}) {
		t.Fatalf("round trip: %+v", got)
	}
	if got.issue("td-cccccc") != nil || got.issue("") != nil {
		t.Fatal("facts of an issue the cache lacks")
	}
	if a := got.issue("td-aaaaaa"); a.AddedBy != "Op <op@example.com>" || a.AddedSession != "ses_a" ||
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

// TestGitFactsExtendCachedFacts reads the facts from a cache, which decodes
// an issue only when asked for, after a new commit: the issues the commit
// did not touch keep their facts, in memory and in the cache written.
func TestGitFactsExtendCachedFacts(t *testing.T) {
	g := newGitStore(t)
	write := func(id, body string) {
		path := g.s.Path(IssuesDir, id+".md")
		if err := os.WriteFile(path, []byte("---\nid: "+id+"\ntitle: "+body+"\nstatus: open\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{"td-aaaaaa", "td-bbbbbb", "td-cccccc", "td-dddddd"}
	for _, id := range ids {
		write(id, "first")
	}
	g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "add", "-A")
	g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "commit", "-q", "-m", "add\n\nTd-Session: ses_first")
	want := map[string]*IssueGit{}
	for _, id := range ids {
		ig, err := g.s.IssueGitFacts(id)
		if err != nil || ig == nil {
			t.Fatalf("%s: %v %v", id, ig, err)
		}
		want[id] = ig
	}
	// A new commit, read over the cached facts.
	write("td-bbbbbb", "second")
	write("td-eeeeee", "new")
	g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "add", "-A")
	g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "commit", "-q", "-m", "more\n\nTd-Session: ses_second")
	for round := 0; round < 2; round++ {
		g.reopen() // the second round reads the cache the first wrote
		for _, id := range ids {
			ig, err := g.s.IssueGitFacts(id)
			if err != nil || ig == nil {
				t.Fatalf("round %d, %s: %v %v", round, id, ig, err)
			}
			sessions := []string{"ses_first"}
			if id == "td-bbbbbb" {
				sessions = append(sessions, "ses_second")
			}
			if ig.AddedBy != want[id].AddedBy || ig.AddedSession != "ses_first" || !slices.Equal(ig.Sessions, sessions) {
				t.Errorf("round %d, %s: %+v", round, id, ig)
			}
		}
		if ig, err := g.s.IssueGitFacts("td-eeeeee"); err != nil || ig == nil || ig.AddedSession != "ses_second" {
			t.Errorf("round %d, td-eeeeee: %+v %v", round, ig, err)
		}
	}
}

func TestCommitInvolves(t *testing.T) {
	for _, c := range []struct {
		actions []string
		want    bool
	}{
		{nil, true}, // a person's own commit, its Td-Session added by td's hook
		{[]string{audit.ActionCriterionAdded}, false},
		{[]string{audit.ActionCriterionAdded, audit.ActionCriterionDropped, audit.ActionCriterionReopened}, false},
		{[]string{audit.ActionCriterionCompleted}, true},
		{[]string{audit.ActionCriterionAdded, audit.ActionCommented}, true},
		{[]string{"todos_changed"}, true},
		{[]string{audit.ActionStarted}, true},
	} {
		if got := CommitInvolves(c.actions); got != c.want {
			t.Errorf("CommitInvolves(%q) = %v, want %v", c.actions, got, c.want)
		}
	}
}

// TestGitFactsCriteriaCommits: a commit whose only actions write the
// definition of done does not make its session involved; any other does.
func TestGitFactsCriteriaCommits(t *testing.T) {
	g := newGitStore(t)
	write := func(id, body string) {
		path := g.s.Path(IssuesDir, id+".md")
		if err := os.WriteFile(path, []byte("---\nid: "+id+"\ntitle: "+body+"\nstatus: open\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) {
		g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "add", "-A")
		g.git("-c", "user.name=Op", "-c", "user.email=op@example.com", "commit", "-q", "-m", msg)
	}
	write("td-aaaaaa", "filed")
	commit("td: create td-aaaaaa\n\nTd-Session: ses_lead\nTd-Action: created\nTd-Issue: td-aaaaaa")
	write("td-aaaaaa", "criteria")
	commit("td: add a criterion to td-aaaaaa\n\nTd-Session: ses_oper\nTd-Action: criterion_added\nTd-Issue: td-aaaaaa")
	write("td-aaaaaa", "dropped")
	commit("td: drop a criterion\n\nTd-Session: ses_oper\nTd-Action: criterion_dropped")
	write("td-aaaaaa", "claimed")
	commit("td: claim a criterion\n\nTd-Session: ses_work\nTd-Action: criterion_completed")
	write("td-aaaaaa", "by hand")
	commit("Tidy the title\n\nTd-Session: ses_hand")
	ig, err := g.s.IssueGitFacts("td-aaaaaa")
	if err != nil || ig == nil {
		t.Fatalf("%v %v", ig, err)
	}
	if want := []string{"ses_lead", "ses_work", "ses_hand"}; !slices.Equal(ig.Sessions, want) {
		t.Errorf("Sessions = %q, want %q", ig.Sessions, want)
	}
}

func FuzzDecodeGitFacts(f *testing.F) {
	f.Add(encodeGitFacts(&gitFacts{Head: "d7d109ba7fa21ce2dd47c1ab65b05d3549f460c0", Seen: []string{"d7d109ba7fa21ce2dd47c1ab65b05d3549f460c0"},
		Issues: map[string]*IssueGit{"td-aaaaaa": {AddedBy: "Op <op@example.com>", AddedSession: "ses_a", AddedAt: time.Unix(1795000000, 0).UTC(), Sessions: []string{"ses_a"}}, "td-bbbbbb": {}}}))
	f.Add(encodeGitFacts(&gitFacts{}))
	f.Add([]byte("TDGF\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeGitFacts(data)
		if err != nil {
			return
		}
		// Every id the cache indexes decodes, and whatever decodes encodes
		// back to the same facts.
		again, err := decodeGitFacts(encodeGitFacts(got))
		if err != nil || !slices.Equal(again.ids(), got.ids()) || again.Head != got.Head || !slices.Equal(again.Seen, got.Seen) {
			t.Fatalf("re-encoding changed the facts: %v", err)
		}
		for _, id := range got.ids() {
			a, b := got.issue(id), again.issue(id)
			if a == nil || b == nil || a.AddedBy != b.AddedBy || a.AddedSession != b.AddedSession || !a.AddedAt.Equal(b.AddedAt) ||
				!slices.Equal(a.Sessions, b.Sessions) || !slices.Equal(a.Implementers, b.Implementers) {
				t.Fatalf("%q: %+v, then %+v", id, a, b)
			}
		}
	})
}
