package claims

import (
	"fmt"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
	"github.com/tdproject/td/repo/repotest"
)

// benchStore is a store in a new git repository, with a fixed clock.
func benchStore(b *testing.B) *repo.Store {
	b.Helper()
	dir := b.TempDir()
	if _, err := gitrepo.Init(dir); err != nil {
		b.Fatal(err)
	}
	opts := repo.Options{Now: func() time.Time { return repotest.Clock }, Env: func(k string) string {
		return map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}[k]
	}}
	if _, err := repo.Init(dir, repo.InitOptions{Options: opts}); err != nil {
		b.Fatal(err)
	}
	s, err := repo.Open(dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkTakeRelease is the claim work of one td start and one td
// unstart: a record commit written, the reference swapped in, then
// deleted.
func BenchmarkTakeRelease(b *testing.B) {
	s := benchStore(b)
	se, err := s.StartSession(repo.StartOptions{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Take(s, se, "td-bench0", "start", HandOver{}); err != nil {
			b.Fatal(err)
		}
		if _, err := Release(s, "td-bench0", se.ID, se.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadPrefetch500 is what td ready adds at 500 live claims:
// the references listed, and the 500 records read in one pass.
func BenchmarkLoadPrefetch500(b *testing.B) {
	s := benchStore(b)
	se, err := s.StartSession(repo.StartOptions{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = fmt.Sprintf("td-b%05d", i)
		if _, err := Take(s, se, ids[i], "start", HandOver{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		cs, err := Load(s)
		if err != nil {
			b.Fatal(err)
		}
		cs.Prefetch(ids)
		if cs.Get(ids[499]) == nil {
			b.Fatal("claim not read")
		}
	}
}

// BenchmarkGetAll500 is what td list and td ready add to the above: each
// of the 500 claims asked for once the records are read, which judges
// whether the ledger made it stale.
func BenchmarkGetAll500(b *testing.B) {
	s := benchStore(b)
	se, err := s.StartSession(repo.StartOptions{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = fmt.Sprintf("td-b%05d", i)
		if _, err := Take(s, se, ids[i], "start", HandOver{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		cs, err := Load(s)
		if err != nil {
			b.Fatal(err)
		}
		cs.Prefetch(ids)
		for _, id := range ids {
			if cs.Get(id) == nil {
				b.Fatal("claim not read")
			}
		}
	}
}
