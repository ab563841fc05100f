package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/gitrepo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/links"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/review"
	"github.com/tdproject/td/repo/todos"
)

// The benchmarks below measure what one td process does at the scale of
// SPEC section 11: 10,000 issues with twenty todos each, in a git
// repository whose index holds every issue file and ledger. Each iteration
// opens a fresh Store, as a process would. The repository is generated once
// per test binary, and only when a benchmark runs: plain go test never pays
// for it.

const benchIssues = 10_000

const benchPrefix = "td-bench"

func TestMain(m *testing.M) { repotest.BenchMain(m, benchPrefix) }

func benchEnv(key string) string {
	if key == "TD_SESSION" {
		return gen.Session
	}
	return repotest.GeneratedAuthor(key)
}

// benchRoot returns the work tree of the shared generated repository,
// generating it on first use. Benchmarks run one at a time, so the marker
// file written after a complete generation is all the coordination needed.
func benchRoot(b *testing.B) string {
	b.Helper()
	return repotest.Generated(b, repotest.BenchDir(benchPrefix), benchIssues)
}

// benchOpen opens the shared store as a td process would.
func benchOpen(b *testing.B, root string) *repo.Store {
	b.Helper()
	s, err := repo.Open(root, repo.Options{Env: benchEnv})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchWarm brings the index cache up to date.
func benchWarm(b *testing.B, root string) {
	b.Helper()
	if _, perrs, err := benchOpen(b, root).List(repo.Filter{}); err != nil || len(perrs) > 0 {
		b.Fatalf("list: %v %v", err, perrs)
	}
}

// BenchmarkList10k lists every open issue with a warm index cache. Target
// (td list): 40 ms.
func BenchmarkList10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	b.ReportAllocs()
	for b.Loop() {
		list, _, err := benchOpen(b, root).List(repo.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		if len(list) < benchIssues/2 {
			b.Fatalf("listed %d issues", len(list))
		}
	}
}

// BenchmarkBoard10k builds the board of every issue with a warm index
// cache: the list's read, every closed issue's last change from the ledger
// cache, children counted over all issues and the claims listed. Target
// (td board): 60 ms.
func BenchmarkBoard10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	if _, err := board.Build(benchOpen(b, root), board.Filter{}); err != nil {
		b.Fatal(err) // and the ledger cache is warm too
	}
	b.ReportAllocs()
	for b.Loop() {
		bd, err := board.Build(benchOpen(b, root), board.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(bd.Columns[0].Cards); n < benchIssues/8 {
			b.Fatalf("%d open cards", n)
		}
	}
}

// BenchmarkReady10k lists the open issues whose blockers are all closed,
// with a warm index cache: the same read as list, plus each issue's
// blocked_by links checked against the others' statuses. Target (td
// ready): 40 ms.
func BenchmarkReady10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	b.ReportAllocs()
	for b.Loop() {
		list, _, err := links.Ready(benchOpen(b, root), repo.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		if len(list) < benchIssues/4 {
			b.Fatalf("%d issues ready", len(list))
		}
	}
}

// BenchmarkListColdCache10k lists every open issue after deleting the index
// cache, so that all 10,000 files are read and parsed and the cache written.
func BenchmarkListColdCache10k(b *testing.B) {
	root := benchRoot(b)
	cache := filepath.Join(root, repo.TodosDir, repo.LocalDir, repo.IndexFile)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := os.Remove(cache); err != nil && !errors.Is(err, fs.ErrNotExist) {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, _, err := benchOpen(b, root).List(repo.Filter{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchShow is what td show does below the command line: resolve the
// reference, read and parse the file, read the ledger.
func benchShow(b *testing.B, root, ref, want string) {
	b.ReportAllocs()
	for b.Loop() {
		s := benchOpen(b, root)
		is, err := s.Issue(ref)
		if err != nil {
			b.Fatal(err)
		}
		if is.ID != want {
			b.Fatalf("%s resolved to %s, want %s", ref, is.ID, want)
		}
		if _, _, err := s.Ledger(is.ID); err != nil {
			b.Fatal(err)
		}
		_ = is.Description()
	}
}

// BenchmarkShow10k shows one issue by its full ID. Target (td show): 10 ms.
func BenchmarkShow10k(b *testing.B) {
	root := benchRoot(b)
	id := gen.ID(benchIssues / 3)
	benchShow(b, root, id, id)
}

// BenchmarkShowPrefix10k shows one issue by a unique 4-character prefix of
// the part after "td-", which has to list the issues directory.
func BenchmarkShowPrefix10k(b *testing.B) {
	root := benchRoot(b)
	id, prefix, ok := gen.UniquePrefix(gen.IDs(benchIssues), 4)
	if !ok {
		b.Fatal("no unique 4-character prefix")
	}
	benchShow(b, root, prefix, id)
}

// BenchmarkEdit10k changes one issue's priority back and forth: resolve,
// lock, read, rewrite one frontmatter line, append to the ledger, and stage
// both files into the 20,000-entry git index. Target (a mutation): 25 ms.
func BenchmarkEdit10k(b *testing.B) {
	root := benchRoot(b)
	id := gen.ID(benchIssues / 2)
	prios := []string{"P1", "P2"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := benchOpen(b, root)
		se := benchSession(b, s)
		p := prios[i%2]
		if _, _, err := issues.Edit(s, se, id, issues.EditOptions{Priority: &p}); err != nil {
			b.Fatal(err)
		}
		if w := s.Warnings(); len(w) > 0 {
			b.Fatalf("warnings: %v", w)
		}
	}
}

// BenchmarkCreate10k files new issues in the 10,000-issue repository:
// mint an ID, write the file and its ledger, stage both. Target: 20 ms.
// Each iteration leaves one more issue behind.
func BenchmarkCreate10k(b *testing.B) {
	root := benchRoot(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := benchOpen(b, root)
		se := benchSession(b, s)
		if _, err := issues.Create(s, se, issues.CreateOptions{Title: fmt.Sprintf("bench issue %d", i)}); err != nil {
			b.Fatal(err)
		}
		if w := s.Warnings(); len(w) > 0 {
			b.Fatalf("warnings: %v", w)
		}
	}
}

// benchSession returns the generated repository's operator session.
func benchSession(b *testing.B, s *repo.Store) *repo.Session {
	b.Helper()
	se, _, err := s.CurrentSession("", false)
	if err != nil || se == nil {
		b.Fatalf("session: %v", err)
	}
	return se
}

// benchOpenIssue is a generated issue whose status is open (statuses cycle
// with period 8 and the first three are open), near index near.
func benchOpenIssue(near int) string { return gen.ID(near - near%8) }

// benchAlternate runs the steps in turn, one per iteration, each on a
// fresh Store as a td process would: a change and the change back, so the
// repository ends as it began.
func benchAlternate(b *testing.B, steps ...func(s *repo.Store, se *repo.Session) error) {
	root := benchRoot(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := benchOpen(b, root)
		if err := steps[i%len(steps)](s, benchSession(b, s)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTodoMutation10k starts one todo, then another, in one issue of
// the 10,000: lock, read, parse the checklist with goldmark, move the one
// in-progress slot, check the invariants, write and stage. Target: 25 ms.
func BenchmarkTodoMutation10k(b *testing.B) {
	id := gen.ID(benchIssues / 4)
	start := func(text string) func(*repo.Store, *repo.Session) error {
		return func(s *repo.Store, se *repo.Session) error {
			_, err := todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoStart, Issue: id, Targets: []string{text}})
			return err
		}
	}
	benchAlternate(b, start("Step 1 for"), start("Step 2 for"))
}

// BenchmarkTodoMutationAuto10k is BenchmarkTodoMutation10k in git mode
// auto: the same mutation, then a commit of the issue file on top of a
// HEAD holding all 10,000 issues (the issues directory's tree rebuilt and
// written, the branch moved under its lock). Target: 25 ms.
func BenchmarkTodoMutationAuto10k(b *testing.B) {
	root := benchAutoRoot(b)
	id := gen.ID(benchIssues / 4)
	texts := []string{"Step 1 for", "Step 2 for"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s := benchOpen(b, root)
		s.Config.Git.Mode = repo.GitModeAuto
		if _, err := todos.Apply(s, benchSession(b, s), todos.TodoRequest{Op: todos.TodoStart, Issue: id, Targets: []string{texts[i%2]}}); err != nil {
			b.Fatal(err)
		}
		if w := s.Warnings(); len(w) > 0 {
			b.Fatalf("warnings: %v", w)
		}
	}
}

// BenchmarkStatusChange10k blocks and unblocks an open issue: a workflow
// transition with its ledger entry. Target (a status change): 25 ms.
func BenchmarkStatusChange10k(b *testing.B) {
	id := benchOpenIssue(benchIssues / 5)
	benchAlternate(b,
		func(s *repo.Store, se *repo.Session) error {
			_, err := issues.Block(s, se, id, issues.TransitionOptions{})
			return err
		},
		func(s *repo.Store, se *repo.Session) error {
			_, err := issues.Unblock(s, se, id, issues.TransitionOptions{})
			return err
		})
}

// BenchmarkClosePolicy10k closes and reopens an issue: the close reads the
// review policy's facts (ledger, committed history) first. Target (a
// status change): 25 ms.
func BenchmarkClosePolicy10k(b *testing.B) {
	id := benchOpenIssue(benchIssues / 6)
	benchAlternate(b,
		func(s *repo.Store, se *repo.Session) error {
			_, err := issues.Close(s, se, id, issues.TransitionOptions{Reason: "bench"})
			return err
		},
		func(s *repo.Store, se *repo.Session) error {
			_, err := issues.Reopen(s, se, id, issues.TransitionOptions{})
			return err
		})
}

// BenchmarkReviewable10k lists the 1,250 issues in review the session may
// approve: the index for the list, then each one's ledger facts (cached by
// size and mtime) and committed history through the policy. Target: 50 ms.
func BenchmarkReviewable10k(b *testing.B) {
	root := benchRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		s := benchOpen(b, root)
		se := benchSession(b, s)
		if _, _, err := issues.Reviewable(s, se); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck10k runs td check without a base over the 10,000 issues:
// read and parse every issue, ledger and session file, then check ids,
// in-progress todos, links, cycles and the security chain. Target: 1.5 s.
func BenchmarkCheck10k(b *testing.B) {
	root := benchRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		rep, err := review.Check(benchOpen(b, root), review.CheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Issues < benchIssues {
			b.Fatalf("checked %d issues", rep.Issues)
		}
	}
}

// benchAutoRoot returns a repository generated like benchRoot's, apart from
// it since it gains a commit per iteration, whose HEAD commits every
// generated file: a commit in git mode auto then rebuilds the trees of a
// 10,000-issue directory, as it would in a real project.
func benchAutoRoot(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(repotest.BenchDir(benchPrefix), "auto")
	root := filepath.Join(dir, "repo")
	done := filepath.Join(dir, "generated")
	if _, err := os.Stat(done); err == nil {
		return root
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	if err := gen.Generate(root, benchIssues); err != nil {
		b.Fatalf("generate the benchmark repository: %v", err)
	}
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == repo.LocalDir):
			return filepath.SkipDir
		case !d.IsDir():
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	g, err := gitrepo.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	who := gitrepo.Signature{Name: gen.AuthorName, Email: gen.AuthorEmail, When: time.Now()}
	if _, err := g.Commit(gitrepo.CommitRequest{Paths: paths, Message: "Generated issues\n", Author: who, Committer: who}); err != nil {
		b.Fatalf("commit the generated files: %v", err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// BenchmarkOpenChildren10k is the check td close makes before closing an
// issue with an open child: the index searched, decoded, one child read.
func BenchmarkOpenChildren10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	// Generated issue i+1 is child_of issue i when i+1 is 1 modulo 4.
	parent := gen.ID(benchIssues/6 - (benchIssues/6)%8)
	b.ReportAllocs()
	for b.Loop() {
		got, err := links.OpenChildren(benchOpen(b, root), parent)
		if err != nil || len(got) != 1 {
			b.Fatalf("open children %v %v", got, err)
		}
	}
}

// BenchmarkOpenChildrenNone10k is the same check for an issue without
// children: one search of the index bytes.
func BenchmarkOpenChildrenNone10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	id := gen.ID(benchIssues / 3)
	b.ReportAllocs()
	for b.Loop() {
		if got, err := links.OpenChildren(benchOpen(b, root), id); err != nil || len(got) != 0 {
			b.Fatalf("open children %v %v", got, err)
		}
	}
}

// BenchmarkLink10k adds and removes a blocked_by link: the cycle check
// walks the blocker's chain, then the write, ledger and stage of a
// mutation. Target (a mutation): 25 ms.
func BenchmarkLink10k(b *testing.B) {
	from, to := gen.ID(benchIssues/7), gen.ID(benchIssues/7+3)
	benchAlternate(b,
		func(s *repo.Store, se *repo.Session) error {
			_, err := links.Link(s, se, from, string(domain.BlockedBy), to)
			return err
		},
		func(s *repo.Store, se *repo.Session) error {
			_, err := links.Unlink(s, se, from, string(domain.BlockedBy), to)
			return err
		})
}

// BenchmarkListUpdated10k is td list --json's read: every open issue, and
// the time of each one's last ledger entry (the issue files carry no
// updated_at), with warm index and ledger caches. Target (td list --json):
// 40 ms.
func BenchmarkListUpdated10k(b *testing.B) {
	root := benchRoot(b)
	benchWarm(b, root)
	s := benchOpen(b, root)
	list, _, err := s.List(repo.Filter{})
	if err != nil {
		b.Fatal(err)
	}
	s.FillUpdated(list) // warms the ledger cache
	b.ReportAllocs()
	for b.Loop() {
		s := benchOpen(b, root)
		list, _, err := s.List(repo.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		s.FillUpdated(list)
		if len(list) < benchIssues/2 {
			b.Fatalf("listed %d issues", len(list))
		}
	}
}
