package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/repotest"
)

const benchIssues = 10_000

const benchPrefix = "td-web-bench"

func TestMain(m *testing.M) { repotest.BenchMain(m, benchPrefix) }

// benchRoot is a generated repository of 10,000 issues, made once per test
// binary and only when a benchmark runs ($TD_BENCH_REPO names one to reuse).
func benchRoot(b *testing.B) string {
	b.Helper()
	if r := os.Getenv("TD_BENCH_REPO"); r != "" {
		return r
	}
	return repotest.Generated(b, repotest.BenchDir(benchPrefix), benchIssues)
}

func benchOpen(b *testing.B, root string) *repo.Store {
	b.Helper()
	s, err := repo.Open(root, repo.Options{Env: repotest.GeneratedAuthor})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkWriteSite10k writes the whole site of 10,000 issues into a new
// directory, as the first td board --html does. Target: 5 s.
func BenchmarkWriteSite10k(b *testing.B) {
	root := benchRoot(b)
	for b.Loop() {
		b.StopTimer()
		out := filepath.Join(b.TempDir(), "site")
		b.StartTimer()
		writeSite(b, root, out)
	}
}

// BenchmarkWriteSiteAgain10k writes the site of 10,000 issues over the
// one it wrote before, as every later td board --html does: the pages are
// built again, and written only where they changed.
func BenchmarkWriteSiteAgain10k(b *testing.B) {
	root := benchRoot(b)
	out := filepath.Join(b.TempDir(), "site")
	writeSite(b, root, out)
	for b.Loop() {
		writeSite(b, root, out)
	}
}

func writeSite(b *testing.B, root, out string) {
	res, err := web.WriteSite(benchOpen(b, root), out, web.SiteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if res.Issues < benchIssues {
		b.Fatalf("wrote %d issue pages", res.Issues)
	}
}

// BenchmarkServeBoard10k asks td serve's handler for the board of 10,000
// issues again after its first load: the change check, and the page from
// memory. Target: 50 ms.
func BenchmarkServeBoard10k(b *testing.B) {
	root := benchRoot(b)
	sv := web.NewServer(func() (*repo.Store, error) { return benchOpen(b, root), nil }, "bench", nil, board.Filter{})
	serve := func() {
		if r := sv.Respond("GET", "/", "127.0.0.1:7420"); r.Status != 200 {
			b.Fatalf("GET /: %d", r.Status)
		}
	}
	serve()
	for b.Loop() {
		serve()
	}
	if sv.Reads() != 1 {
		b.Fatalf("the store was read %d times", sv.Reads())
	}
}

// BenchmarkServeIssue10k asks for one issue's page, not yet in memory:
// built from its file, its ledger and its log, every commit described as
// td log ID describes it. The store was read already (for the board).
func BenchmarkServeIssue10k(b *testing.B) {
	root := benchRoot(b)
	id := gen.ID(benchIssues / 3)
	get := func(sv *web.Server, path string) {
		if r := sv.Respond("GET", path, "127.0.0.1:7420"); r.Status != 200 {
			b.Fatalf("GET %s: %d", path, r.Status)
		}
	}
	for b.Loop() {
		b.StopTimer()
		sv := web.NewServer(func() (*repo.Store, error) { return benchOpen(b, root), nil }, "bench", nil, board.Filter{})
		get(sv, "/")
		b.StartTimer()
		get(sv, "/issues/"+id+".html")
	}
}
