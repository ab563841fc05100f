package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/todos"
)

func TestAutoModeCommitsOnlyTdsFiles(t *testing.T) {
	g := repotest.NewAutoStore(t)
	// The user has a staged new file and an unstaged change.
	if err := os.WriteFile(filepath.Join(g.Dir, "user.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Git("add", "user.txt")
	gitattributes := filepath.Join(g.Dir, ".gitattributes")
	if err := os.WriteFile(gitattributes, []byte("# unstaged\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	se := repotest.Actor(t, g.S) // the default session is made, and committed
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	if w := g.S.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if _, err := todos.Apply(g.S, se, todos.TodoRequest{Op: todos.TodoAdd, Issue: is.ID, Items: []string{"Write the callback"}}); err != nil {
		t.Fatal(err)
	}
	if got := g.Git("log", "--format=%s", "-3"); got != "td: update the todos of "+is.ID+"\ntd: create "+is.ID+"\ntd: start session "+se.ID {
		t.Errorf("commits:\n%s", got)
	}
	if got := g.Git("show", "--format=", "--name-only", "HEAD~1"); got != ".todos/history/"+is.ID+".jsonl\n.todos/issues/"+is.ID+".md" {
		t.Errorf("the create commit holds:\n%s", got)
	}
	if got := g.Git("log", "-1", "--format=%B", "HEAD~1"); got != "td: create "+is.ID+"\n\nTd-Session: "+se.ID+"\nTd-Action: created\nTd-Issue: "+is.ID {
		t.Errorf("message:\n%s", got)
	}
	if got := g.Git("log", "-1", "--format=%an <%ae> %cn <%ce> %aI", "HEAD"); got != "Op <op@example.com> Op <op@example.com> 2026-11-21T10:00:00+00:00" {
		t.Errorf("identity and date: %s", got)
	}
	if got := g.Git("status", "--porcelain", "--untracked-files=no"); got != "M .gitattributes\nA  user.txt" {
		t.Errorf("status after td's commits:\n%s", got)
	}

	// The review policy reads the commits back: the creator is the session
	// in the trailers of the commit that added the file.
	g.Reopen()
	ig, err := g.S.IssueGitFacts(is.ID)
	if err != nil || ig == nil {
		t.Fatalf("git facts: %v %v", ig, err)
	}
	if ig.AddedSession != se.ID || !strings.Contains(strings.Join(ig.Sessions, " "), se.ID) {
		t.Errorf("git facts %+v, want %s as the adding session", ig, se.ID)
	}
}

func TestAutoModeLeavesAMergeToTheUser(t *testing.T) {
	g := repotest.NewAutoStore(t)
	se := repotest.Actor(t, g.S)
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	head := g.Git("rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(g.Dir, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Reopen()
	p := "P1"
	if _, _, err := issues.Edit(g.S, se, is.ID, issues.EditOptions{Priority: &p}); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(g.S.Warnings(), "\n")
	for _, part := range []string{"td did not commit, since a merge is in progress (.git/MERGE_HEAD exists)", "after an abort, commit them with git commit -m \"td: edit " + is.ID + "\" -- .todos/issues/" + is.ID + ".md .todos/history/" + is.ID + ".jsonl"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning %q lacks %q", w, part)
		}
	}
	if got := g.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved during a merge")
	}
	if got := g.Git("diff", "--cached", "--name-only"); got != ".todos/history/"+is.ID+".jsonl\n.todos/issues/"+is.ID+".md" {
		t.Errorf("staged:\n%s", got)
	}
	// The staged ledger is td's write: the guard a project agent's commit
	// concluding the merge runs lets it through.
	agent := startAgent(t, g.S, domain.CategoryProject)
	if _, _, err := issues.Comment(g.S, agent, is.ID, "merging"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.S, agent)); !strings.Contains(got, ".todos/history/"+is.ID+".jsonl true") {
		t.Errorf("guard of the staged files:\n%s", got)
	}
}

func TestAutoModeNothingWrittenNothingCommitted(t *testing.T) {
	g := repotest.NewAutoStore(t)
	se := repotest.Actor(t, g.S)
	head := g.Git("rev-parse", "HEAD")
	err := g.S.Update(func(tx *repo.Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("an empty transaction made a commit")
	}
	// A transaction that writes the content HEAD has makes no commit either.
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	head = g.Git("rev-parse", "HEAD")
	data, err := os.ReadFile(g.S.IssuePath(is.ID))
	if err != nil {
		t.Fatal(err)
	}
	err = g.S.Update(func(tx *repo.Tx) error { return tx.WriteFile(data, repo.IssuesDir, is.ID+".md") })
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("rewriting unchanged content made a commit")
	}
	if w := g.S.Warnings(); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}
