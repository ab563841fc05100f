package repo

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSnapshotWants(t *testing.T) {
	for rel, want := range map[string]bool{
		"config.yaml": true, "security_events.jsonl": true, "anchors.md": true,
		"issues/td-aaaaaa.md": true, "history/td-aaaaaa.jsonl": true, "sessions/ses_aaaaaaaa.yaml": true,
		"issues/.td-aaaaaa.md.tmp-1": false, "local/index.bin": false, ".gitignore": false,
		"issues/notes.txt": false, "issues/sub/td-aaaaaa.md": false, "other.yaml": false,
	} {
		if snapshotWants(rel) != want {
			t.Errorf("snapshotWants(%q) = %v", rel, !want)
		}
	}
}

// TestPrefetchHashesReadsOnlyWhatMayHaveChanged: the files git's index
// vouches for are compared by the object name it records; only a file
// edited since it was staged, or never staged, is read. A diff of 100,000
// issues against a branch read every file before.
func TestPrefetchHashesReadsOnlyWhatMayHaveChanged(t *testing.T) {
	g := newGitStore(t)
	for _, id := range []string{"td-aaaaaa", "td-bbbbbb", "td-cccccc"} {
		if err := os.WriteFile(g.s.Path(IssuesDir, id+".md"), []byte("---\nid: "+id+"\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := g.commit("three issues")
	// An edit in place that keeps the size, made after the index's
	// stat data was taken and in the same second as it (racily clean),
	// and a new file git has never seen.
	if err := os.WriteFile(g.s.Path(IssuesDir, "td-bbbbbb.md"), []byte("---\nid: td-xxxxxx\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.s.Path(IssuesDir, "td-dddddd.md"), []byte("---\nid: td-dddddd\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, rel := range []string{ConfigFile, IssuesDir + "/td-aaaaaa.md", IssuesDir + "/td-cccccc.md"} {
		// Older than the index: git's stat data vouches for them once the
		// index is rewritten with their times.
		if err := os.Chtimes(g.s.Path(rel), old, old); err != nil {
			t.Fatal(err)
		}
	}
	g.git("update-index", "-q", "--refresh") // -q: td-bbbbbb needs an update, and stays unvouched

	head, err := g.s.WorkTreeSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var read []string
	next := head.read
	head.read = func(f *snapFile) ([]byte, error) {
		mu.Lock()
		read = append(read, f.path)
		mu.Unlock()
		return next(f)
	}
	head.PrefetchHashes(head.Paths())
	slices.Sort(read)
	want := []string{".todos/issues/td-bbbbbb.md", ".todos/issues/td-dddddd.md"}
	if !slices.Equal(read, want) {
		t.Fatalf("read %q, want only %q", read, want)
	}
	at, err := g.s.SnapshotAt(base)
	if err != nil {
		t.Fatal(err)
	}
	for p, same := range map[string]bool{
		".todos/issues/td-aaaaaa.md": true, ".todos/issues/td-bbbbbb.md": false,
		".todos/issues/td-cccccc.md": true, ".todos/issues/td-dddddd.md": false,
	} {
		if got := at.Same(head, p); got != same {
			t.Errorf("Same(%s) = %v, want %v", p, got, same)
		}
	}
}

func TestObjectName(t *testing.T) {
	const full = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		in    string
		known bool
	}{
		{full, true},
		{strings.ToUpper(full), true},
		{"", false},
		{full[:39], false},
		{full + "8", false},
		{"g" + full[1:], false},
	} {
		n := nameOf(tc.in)
		if n.known != tc.known {
			t.Errorf("nameOf(%q).known = %v, want %v", tc.in, n.known, tc.known)
		}
		if want := strings.ToLower(tc.in); tc.known && n.String() != want {
			t.Errorf("nameOf(%q) = %q, want %q", tc.in, n.String(), want)
		}
		if !tc.known && (n.String() != "" || n != (objectName{})) {
			t.Errorf("nameOf(%q) = %q, want none", tc.in, n.String())
		}
	}
}
