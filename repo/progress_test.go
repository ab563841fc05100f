package repo

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/repo/gen"
)

// TestProgressHearsALongRead: a read that parses at least progressFrom
// issue files tells Options.Progress, ending with done == total; a read
// that parses fewer, or none (the cache is warm), tells it nothing.
func TestProgressHearsALongRead(t *testing.T) {
	if testing.Short() {
		// The same read of fewer files: parsing 2,000 took 1 to 3 s.
		was := progressFrom
		progressFrom = 200
		t.Cleanup(func() { progressFrom = was })
	}
	s := newTestStore(t)
	var mu sync.Mutex
	var heard [][2]int
	s.opts.Progress = func(done, total int) {
		mu.Lock()
		heard = append(heard, [2]int{done, total})
		mu.Unlock()
	}
	// Written an hour ago: a file as new as the cache that reads it is
	// racily clean and read again, which would make a warm read look cold.
	past := time.Now().Add(-time.Hour)
	for i := range progressFrom {
		path := filepath.Join(s.Path(IssuesDir), gen.ID(i)+".md")
		if err := os.WriteFile(path, gen.Issue(i), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, past, past); err != nil {
			t.Fatal(err)
		}
	}
	all, perrs, err := s.LoadAll()
	if err != nil || len(perrs) > 0 || len(all) != progressFrom {
		t.Fatalf("LoadAll: %d issues, %v, %v", len(all), perrs, err)
	}
	if len(heard) == 0 || heard[len(heard)-1] != [2]int{progressFrom, progressFrom} {
		t.Fatalf("Progress heard %v, want it to end with %d of %d", heard, progressFrom, progressFrom)
	}
	for _, h := range heard {
		if h[0] > h[1] || h[1] != progressFrom {
			t.Fatalf("Progress heard %v", heard)
		}
	}
	heard = nil
	if _, _, err := s.LoadAll(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Path(IssuesDir), gen.ID(0)+".md"), gen.Issue(0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LoadAll(); err != nil {
		t.Fatal(err)
	}
	if len(heard) > 0 {
		t.Fatalf("a warm read told Progress %v", heard)
	}
}
