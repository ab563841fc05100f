package issues

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

func TestConcurrentEditsLoseNothing(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	is, err := Create(s, se, CreateOptions{Title: "Shared"})
	if err != nil {
		t.Fatal(err)
	}
	workers, each := 8, 20
	if testing.Short() {
		each = 5 // -short: 40 concurrent edits instead of 160
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// Each worker opens its own store, as a separate process would.
			st, err := repo.Open(s.Root, repo.Options{Now: s.Now, Env: s.Env})
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < each; i++ {
				if _, _, err := Edit(st, se, is.ID, EditOptions{AddLabels: []string{fmt.Sprintf("w%d-%d", w, i)}}); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.Issue(is.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Labels) != workers*each {
		t.Fatalf("%d labels, want %d: concurrent edits were lost", len(got.Labels), workers*each)
	}
	ledger, lerrs, _ := s.Ledger(is.ID)
	if len(lerrs) != 0 || len(ledger) != 1+workers*each {
		t.Fatalf("ledger has %d entries (%v), want %d", len(ledger), lerrs, 1+workers*each)
	}
	left, _ := filepath.Glob(filepath.Join(s.Path(repo.IssuesDir), ".*tmp*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}
