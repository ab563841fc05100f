package links_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/links"
	"github.com/tdproject/td/repo/repotest"
)

// newIssues files n issues and returns their IDs in order.
func newIssues(t testing.TB, s *repo.Store, se *repo.Session, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		is, err := issues.Create(s, se, issues.CreateOptions{Title: fmt.Sprintf("issue %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = is.ID
	}
	return ids
}

// TestLinkCycleBeyondTheWalk closes a blocked_by chain longer than the
// file-by-file walk reads: the refusal must come from the index instead.
func TestLinkCycleBeyondTheWalk(t *testing.T) {
	for _, n := range []int{3, links.MaxLinkWalk + 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := repotest.NewStore(t)
			se := repotest.Actor(t, s)
			ids := newIssues(t, s, se, n)
			for i := 0; i+1 < n; i++ {
				if _, err := links.Link(s, se, ids[i], string(domain.BlockedBy), ids[i+1]); err != nil {
					t.Fatal(err)
				}
			}
			_, err := links.Link(s, se, ids[n-1], string(domain.BlockedBy), ids[0])
			if repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "would make a cycle: "+ids[n-1]+" blocked_by "+ids[0]+" blocked_by "+ids[1]) {
				t.Fatalf("closing the chain: %v", err)
			}
			// Not a cycle: a second way down the same chain.
			if _, err := links.Link(s, se, ids[0], string(domain.BlockedBy), ids[n-1]); err != nil {
				t.Fatalf("a shortcut down the chain: %v", err)
			}
		})
	}
}

func TestOpenChildren(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	ids := newIssues(t, s, se, 4)
	parent := ids[0]
	for _, c := range ids[1:] {
		if _, err := links.Link(s, se, c, string(domain.ChildOf), parent); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := issues.Close(s, se, ids[3], issues.TransitionOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{ids[1], ids[2]}
	slices.Sort(want)
	check := func(what string, want []string) {
		t.Helper()
		got, err := links.OpenChildren(s, parent)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []string
		for _, is := range got {
			gotIDs = append(gotIDs, is.ID)
		}
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, want) {
			t.Errorf("%s: open children %v, want %v", what, gotIDs, want)
		}
	}
	// Without an index the issues are read; with one, only the children.
	if err := os.Remove(s.Path(repo.LocalDir, repo.IndexFile)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	check("no index", want)
	if _, _, err := s.List(repo.Filter{}); err != nil {
		t.Fatal(err)
	}
	check("from the index", want)
	// The index still says ids[1] is a child; its file says no more.
	if _, err := links.Unlink(s, se, ids[1], string(domain.ChildOf), parent); err != nil {
		t.Fatal(err)
	}
	check("after an unlink", []string{ids[2]})
	if got, err := links.OpenChildren(s, ids[1]); err != nil || len(got) != 0 {
		t.Errorf("an issue without children: %v %v", got, err)
	}
	// A corrupt index is rebuilt, not trusted.
	if err := os.WriteFile(s.Path(repo.LocalDir, repo.IndexFile), []byte("TDIX\x01garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("corrupt index", []string{ids[2]})
}

// TestConcurrentLinks adds links to one issue from many stores at once, as
// td processes would: the lock keeps every one.
func TestConcurrentLinks(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	ids := newIssues(t, s, se, 9)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, other := range ids[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2, err := repo.Open(s.Root, repo.Options{Now: s.Now, Env: s.Env})
			if err == nil {
				_, err = links.Link(s2, se, ids[0], string(domain.BlockedBy), other)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	is, err := s.Issue(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(is.Links) != 8 {
		t.Errorf("%d links kept, want 8: %v", len(is.Links), is.Links)
	}
}

func TestStatusLookup(t *testing.T) {
	issue := func(id string, st domain.Status) *repo.Issue {
		is := &repo.Issue{}
		is.ID, is.Status = id, st
		return is
	}
	for name, all := range map[string][]*repo.Issue{
		// In file-name order "td-a-b.md" sorts before "td-a.md": the IDs
		// are out of order, and the lookup must still find both.
		"file order": {issue("td-a-b", domain.StatusClosed), issue("td-a", domain.StatusOpen), issue("td-b", domain.StatusBlocked)},
		"ID order":   {issue("td-a", domain.StatusOpen), issue("td-a-b", domain.StatusClosed), issue("td-b", domain.StatusBlocked)},
	} {
		find := links.StatusLookup(all)
		for id, want := range map[string]domain.Status{"td-a": domain.StatusOpen, "td-a-b": domain.StatusClosed, "td-b": domain.StatusBlocked} {
			if st, ok := find(id); !ok || st != want {
				t.Errorf("%s: %s is %q, %v; want %q", name, id, st, ok, want)
			}
		}
		for _, id := range []string{"td-", "td-c", "td-a-"} {
			if st, ok := find(id); ok {
				t.Errorf("%s: %s found, %q", name, id, st)
			}
		}
	}
}
