package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// autoStore is a git store in git mode auto, with its setup committed.
func autoStore(t *testing.T) *gitStore {
	t.Helper()
	g := newGitStore(t)
	cfg := filepath.Join(g.dir, TodosDir, ConfigFile)
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "mode: stage", "mode: auto", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	g.commit("set up td")
	g.reopen()
	if g.s.Config.Git.Mode != GitModeAuto {
		t.Fatalf("git mode %q", g.s.Config.Git.Mode)
	}
	return g
}

func TestAutoModeCommitsOnlyTdsFiles(t *testing.T) {
	g := autoStore(t)
	// The user has a staged new file and an unstaged change.
	if err := os.WriteFile(filepath.Join(g.dir, "user.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.git("add", "user.txt")
	gitattributes := filepath.Join(g.dir, ".gitattributes")
	if err := os.WriteFile(gitattributes, []byte("# unstaged\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	se := actor(t, g.s) // the default session is made, and committed
	is, err := g.s.CreateIssue(se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	if w := g.s.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if _, err := g.s.Todo(se, TodoRequest{Op: TodoAdd, Issue: is.ID, Items: []string{"Write the callback"}}); err != nil {
		t.Fatal(err)
	}
	if got := g.git("log", "--format=%s", "-3"); got != "td: update the todos of "+is.ID+"\ntd: create "+is.ID+"\ntd: start session "+se.ID {
		t.Errorf("commits:\n%s", got)
	}
	if got := g.git("show", "--format=", "--name-only", "HEAD~1"); got != ".todos/history/"+is.ID+".jsonl\n.todos/issues/"+is.ID+".md" {
		t.Errorf("the create commit holds:\n%s", got)
	}
	if got := g.git("log", "-1", "--format=%B", "HEAD~1"); got != "td: create "+is.ID+"\n\nTd-Session: "+se.ID+"\nTd-Action: created\nTd-Issue: "+is.ID {
		t.Errorf("message:\n%s", got)
	}
	if got := g.git("log", "-1", "--format=%an <%ae> %cn <%ce> %aI", "HEAD"); got != "Op <op@example.com> Op <op@example.com> 2026-11-21T10:00:00+00:00" {
		t.Errorf("identity and date: %s", got)
	}
	if got := g.git("status", "--porcelain", "--untracked-files=no"); got != "M .gitattributes\nA  user.txt" {
		t.Errorf("status after td's commits:\n%s", got)
	}

	// The review policy reads the commits back: the creator is the session
	// in the trailers of the commit that added the file.
	g.reopen()
	ig, err := g.s.IssueGitFacts(is.ID)
	if err != nil || ig == nil {
		t.Fatalf("git facts: %v %v", ig, err)
	}
	if ig.AddedSession != se.ID || !strings.Contains(strings.Join(ig.Sessions, " "), se.ID) {
		t.Errorf("git facts %+v, want %s as the adding session", ig, se.ID)
	}
}

func TestAutoModeLeavesAMergeToTheUser(t *testing.T) {
	g := autoStore(t)
	se := actor(t, g.s)
	is, err := g.s.CreateIssue(se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	head := g.git("rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(g.dir, ".git", "MERGE_HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.reopen()
	p := "P1"
	if _, _, err := g.s.EditIssue(se, is.ID, EditOptions{Priority: &p}); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(g.s.Warnings(), "\n")
	for _, part := range []string{"td did not commit, since a merge is in progress (.git/MERGE_HEAD exists)", "after an abort, commit them with git commit -m \"td: edit " + is.ID + "\" -- .todos/issues/" + is.ID + ".md .todos/history/" + is.ID + ".jsonl"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning %q lacks %q", w, part)
		}
	}
	if got := g.git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved during a merge")
	}
	if got := g.git("diff", "--cached", "--name-only"); got != ".todos/history/"+is.ID+".jsonl\n.todos/issues/"+is.ID+".md" {
		t.Errorf("staged:\n%s", got)
	}
	// The staged ledger is td's write: the guard a project agent's commit
	// concluding the merge runs lets it through.
	agent := startAgent(t, g.s, domain.CategoryProject)
	if _, _, err := g.s.Comment(agent, is.ID, "merging"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.s, agent)); !strings.Contains(got, ".todos/history/"+is.ID+".jsonl true") {
		t.Errorf("guard of the staged files:\n%s", got)
	}
}

func TestAutoModeNothingWrittenNothingCommitted(t *testing.T) {
	g := autoStore(t)
	se := actor(t, g.s)
	head := g.git("rev-parse", "HEAD")
	err := g.s.Update(func(tx *Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := g.git("rev-parse", "HEAD"); got != head {
		t.Errorf("an empty transaction made a commit")
	}
	// A transaction that writes the content HEAD has makes no commit either.
	is, err := g.s.CreateIssue(se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	head = g.git("rev-parse", "HEAD")
	data, err := os.ReadFile(g.s.IssuePath(is.ID))
	if err != nil {
		t.Fatal(err)
	}
	err = g.s.Update(func(tx *Tx) error { return tx.WriteFile(data, IssuesDir, is.ID+".md") })
	if err != nil {
		t.Fatal(err)
	}
	if got := g.git("rev-parse", "HEAD"); got != head {
		t.Errorf("rewriting unchanged content made a commit")
	}
	if w := g.s.Warnings(); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}
