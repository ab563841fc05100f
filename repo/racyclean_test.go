package repo

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// An edit that keeps a file's size and puts its mtime back (cp -p, rsync
// -t) is still seen once the racy window passes: the stamp the issue
// cache keys on reads the change time too, which no one sets by hand.
// Without it td list would show the old title until the file changed
// again.
func TestIssueCacheSeesAnEditThatKeepsSizeAndMtime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the change time is read on Linux")
	}
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 100 * time.Millisecond
	s := newTestStore(t)
	file := "---\nid: td-abc123\ntitle: Alpha\nstatus: open\ntype: task\npriority: P2\ncreated_at: 2026-11-21T10:00:00Z\nupdated_at: 2026-11-21T10:00:00Z\n---\n"
	p := s.IssuePath("td-abc123")
	if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // out of the racy window: trusted
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	title := func() string {
		t.Helper()
		issues, perrs, err := s.LoadAll()
		if err != nil || len(perrs) > 0 || len(issues) != 1 {
			t.Fatalf("LoadAll: %v %v %d", err, perrs, len(issues))
		}
		return issues[0].Title
	}
	if got := title(); got != "Alpha" {
		t.Fatalf("title %q", got)
	}
	time.Sleep(2 * racyWindow) // the first stamp's change time is out of the window
	if got := title(); got != "Alpha" {
		t.Fatalf("title %q", got)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("Omega"), int64(strings.Index(file, "Alpha"))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * racyWindow)
	if got := title(); got != "Omega" {
		t.Errorf("after an edit that kept size and mtime, td reads %q", got)
	}
}
