package repo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNamesCacheFollowsTheDirectory: short IDs resolve from the names
// cache only while the issues directory has not gained, lost or renamed a
// file since; a directory changed within the racy window is not cached.
func TestNamesCacheFollowsTheDirectory(t *testing.T) {
	s := newTestStore(t)
	for _, id := range []string{"td-abc123", "td-x00000"} {
		writeIssueFile(t, s, id, "---\nid: "+id+"\ntitle: t\n---\n")
	}
	dir := s.Path(IssuesDir)
	cache := s.Path(LocalDir, namesFile)
	// Each backdating picks another time, as real changes do: setting a
	// directory's time back to the very nanosecond the cache recorded is
	// the one change this cache cannot see.
	old := time.Now().Add(-time.Hour)
	backdate := func() {
		t.Helper()
		old = old.Add(-time.Second)
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	resolve := func(ref, want string) {
		t.Helper()
		got, err := s.ResolveID(ref)
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "matches 2 issues") {
				t.Fatalf("ResolveID(%q) = %q, %v; want it ambiguous", ref, got, err)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("ResolveID(%q) = %q, %v; want %s", ref, got, err, want)
		}
	}

	// Changed just now: read, not cached.
	resolve("abc", "td-abc123")
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("the names of a directory changed within the racy window were cached")
	}
	backdate()
	resolve("abc", "td-abc123")
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no names cache: %v", err)
	}
	if _, _, names, err := decodeNames(data); err != nil || !slices.Equal(names, []string{"td-abc123.md", "td-x00000.md"}) {
		t.Fatalf("cached names %v, %v", names, err)
	}
	// The cache answers: a name only it holds resolves (proof it was read).
	ino, mtime, _ := dirStamp(dir)
	if err := writeCacheFile(cache, encodeNames(ino, mtime, []string{"td-abc123.md", "td-cached.md", "td-x00000.md"})); err != nil {
		t.Fatal(err)
	}
	resolve("cach", "td-cached")

	// A new file moves the directory's time: both show.
	writeIssueFile(t, s, "td-abd456", "---\nid: td-abd456\ntitle: t\n---\n")
	resolve("ab", "")
	backdate()
	resolve("ab", "")
	// A removed one too.
	if err := os.Remove(s.IssuePath("td-abd456")); err != nil {
		t.Fatal(err)
	}
	resolve("ab", "td-abc123")

	// A directory replaced by another with the same time is another inode.
	backdate()
	resolve("x0", "td-x00000")
	moved := dir + ".old"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"td-abc123.md", "td-x00001.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("---\nid: "+strings.TrimSuffix(n, ".md")+"\ntitle: t\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	backdate()
	resolve("x0", "td-x00001")

	// A corrupt cache is read past.
	if err := os.WriteFile(cache, []byte("TDNM garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	resolve("x0", "td-x00001")
}

// TestNamesCacheUnwritable: when names.bin cannot be written (a full disk;
// here a directory in its place), short IDs resolve from the directory.
func TestNamesCacheUnwritable(t *testing.T) {
	s := newTestStore(t)
	writeIssueFile(t, s, "td-abc123", "---\nid: td-abc123\ntitle: t\n---\n")
	if err := os.MkdirAll(filepath.Join(s.Path(LocalDir, namesFile), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(s.Path(IssuesDir), old, old); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := s.ResolveID("abc"); err != nil || got != "td-abc123" {
			t.Fatalf("ResolveID = %q, %v", got, err)
		}
	}
}
