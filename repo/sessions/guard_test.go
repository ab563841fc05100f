package sessions

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
)

// verdicts renders a report as "path=allowed" lines, sorted as the report
// is.
func verdicts(r *GuardReport) string {
	var b strings.Builder
	for _, c := range r.Checked {
		fmt.Fprintf(&b, "%s %s %s %v\n", c.Change, c.Class, c.Path, c.Allowed)
	}
	return b.String()
}

func guardStaged(t *testing.T, s *repo.Store, se *repo.Session) *GuardReport {
	t.Helper()
	rep, err := GuardStaged(s, se)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func startAgent(t *testing.T, s *repo.Store, category domain.Category) *repo.Session {
	t.Helper()
	se, err := s.StartSession(repo.StartOptions{Agent: "primary", Category: category})
	if err != nil {
		t.Fatal(err)
	}
	return se
}

func TestGuardProjectAgent(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Commit("init")
	g.Reopen()
	se := startAgent(t, g.S, domain.CategoryProject)
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	g.Write("main.go", "package main\n")
	g.Git("add", "main.go")

	// td wrote the ledger and the session file for the agent: they pass.
	rep := guardStaged(t, g.S, se)
	want := "added meta .todos/history/" + is.ID + ".jsonl true\n" +
		"added issue .todos/issues/" + is.ID + ".md true\n" +
		"added meta .todos/sessions/" + se.ID + ".yaml true\n" +
		"added code main.go true\n"
	if got := verdicts(rep); got != want {
		t.Errorf("td's own writes:\n%s\nwant:\n%s", got, want)
	}
	if rep.Session != se.ID || rep.Role != domain.RoleAgent || rep.Category != domain.CategoryProject || !rep.Staged {
		t.Errorf("report header: %+v", rep)
	}
	if c := rep.Checked[0]; c.Reason != "meta path, written by td" {
		t.Errorf("reason: %q", c.Reason)
	}
	g.Commit("work")
	g.Reopen()

	// Hand edits of the config and of the ledger td wrote, staged with git
	// add, are refused.
	ledger := ".todos/history/" + is.ID + ".jsonl"
	g.Write(".todos/config.yaml", "id_prefix: td\noperators: []\n")
	data, _ := os.ReadFile(filepath.Join(g.Dir, ledger))
	g.Write(ledger, string(data)+`{"ts":"2026-11-21T10:00:00Z","session":"ses_forged00","action":"approved"}`+"\n")
	g.Git("add", ".todos/config.yaml", ledger)
	rep = guardStaged(t, g.S, se)
	refused := rep.Refused()
	if len(refused) != 2 || refused[0].Path != ".todos/config.yaml" || refused[1].Path != ledger {
		t.Fatalf("refused: %+v", refused)
	}
	if !strings.Contains(refused[0].Reason, "run td as a meta session") {
		t.Errorf("reason: %q", refused[0].Reason)
	}

	// td appending to the hand-edited ledger does not launder the edit.
	if _, _, err := issues.Comment(g.S, se, is.ID, "after the forged line"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.S, se)); got != "modified meta .todos/config.yaml false\nmodified meta "+ledger+" false\n" {
		t.Errorf("after td appended to a hand edit:\n%s", got)
	}

	// Back to HEAD's files, td's writes pass again, the unstaged hand
	// edit of a file td did not touch is not part of the change.
	g.Git("checkout", "HEAD", "--", ".todos/config.yaml", ledger)
	g.Write("main.go", "package main // edited\n")
	if _, _, err := issues.Comment(g.S, se, is.ID, "through td"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := issues.Comment(g.S, se, is.ID, "and again"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.S, se)); got != "modified meta "+ledger+" true\n" {
		t.Errorf("td's writes from HEAD:\n%s", got)
	}

	// A deletion by hand of a meta file td never deleted is refused.
	g.Git("rm", "-q", ".todos/sessions/"+se.ID+".yaml")
	rep = guardStaged(t, g.S, se)
	if got := verdicts(rep); !strings.Contains(got, "deleted meta .todos/sessions/"+se.ID+".yaml false\n") {
		t.Errorf("deleted session file:\n%s", got)
	}
}

func TestTdChain(t *testing.T) {
	a, b, c, x := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("x", 40)
	for _, tc := range []struct {
		name         string
		entries      []repo.JournalEntry
		staged, head string
		want         bool
	}{
		{"no writes", nil, a, "-", false},
		{"one write from nothing", []repo.JournalEntry{{After: a, Before: "-"}}, a, "-", true},
		{"one write from HEAD", []repo.JournalEntry{{After: b, Before: a}}, b, a, true},
		{"a chain from HEAD", []repo.JournalEntry{{After: b, Before: a}, {After: c, Before: b}}, c, a, true},
		{"a chain whose start HEAD holds", []repo.JournalEntry{{After: a, Before: "-"}, {After: b, Before: a}, {After: c, Before: b}}, c, b, true},
		{"a hand edit between two writes", []repo.JournalEntry{{After: b, Before: a}, {After: c, Before: x}}, c, a, false},
		{"a hand edit before the first write", []repo.JournalEntry{{After: c, Before: x}}, c, a, false},
		{"staged is not td's", []repo.JournalEntry{{After: b, Before: a}}, x, a, false},
		{"staged is an earlier write of td's", []repo.JournalEntry{{After: b, Before: a}, {After: c, Before: b}}, b, a, true},
		{"td could not read the file", []repo.JournalEntry{{After: b, Before: "?"}}, b, a, false},
		{"a deletion td made", []repo.JournalEntry{{After: "-", Before: a}}, "-", a, true},
		{"a branch switch: HEAD moved", []repo.JournalEntry{{After: b, Before: a}, {After: c, Before: x}}, c, x, true},
	} {
		if got := repo.JournalChain(tc.entries, tc.staged, tc.head); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGuardMetaAgentAndOperator(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Commit("init")
	g.Reopen()
	meta := startAgent(t, g.S, domain.CategoryMeta)
	g.Write("main.go", "package main\n")
	g.Write(".todos/config.yaml", "id_prefix: td\noperators: []\n")
	g.Write(".todos/issues/td-aaaaaa.md", "---\nid: td-aaaaaa\ntitle: x\n---\n")
	g.Write(".todos/local/junk", "local\n")
	g.Git("add", "main.go", ".todos/config.yaml", ".todos/issues/td-aaaaaa.md")
	g.Git("add", "-f", ".todos/local/junk")
	rep := guardStaged(t, g.S, meta)
	want := "modified meta .todos/config.yaml true\n" +
		"added issue .todos/issues/td-aaaaaa.md true\n" +
		"added local .todos/local/junk true\n" +
		"added meta .todos/sessions/" + meta.ID + ".yaml true\n" +
		"added code main.go false\n"
	if got := verdicts(rep); got != want {
		t.Errorf("meta agent:\n%s\nwant:\n%s", got, want)
	}
	if r := rep.Refused(); len(r) != 1 || !strings.Contains(r[0].Reason, "user code; a meta session") {
		t.Errorf("refused: %+v", r)
	}

	// The operator (the git author, listed by td init) may change it all,
	// with or without a session of their own.
	op := repotest.Actor(t, g.S)
	for _, se := range []*repo.Session{op, nil} {
		rep = guardStaged(t, g.S, se)
		if r := rep.Refused(); len(r) != 0 || rep.Role != domain.RoleOperator {
			t.Errorf("operator %v: role %s, refused %+v", se != nil, rep.Role, r)
		}
	}
	if rep.Session != "" || rep.Author != "Op <op@example.com>" {
		t.Errorf("no session: %+v", rep)
	}
}

func TestGuardReadsTheIndexGitNames(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Commit("init")
	g.Reopen()
	meta := startAgent(t, g.S, domain.CategoryMeta)
	g.Commit("session")
	g.Write("main.go", "package main\n")
	g.Git("add", "main.go")
	// While git commit runs a hook for git commit -a or a commit of named
	// paths, GIT_INDEX_FILE names the index being committed.
	alt := filepath.Join(g.Dir, ".git", "index.alt")
	data, err := os.ReadFile(filepath.Join(g.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	g.Git("reset", "-q")
	if len(guardStaged(t, g.S, meta).Checked) != 0 {
		t.Fatal("the repository's index has changes")
	}
	if err := os.WriteFile(alt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com", "GIT_INDEX_FILE": ".git/index.alt"}
	s, err := repo.Open(g.Dir, repo.Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, s, meta)); got != "added code main.go false\n" {
		t.Errorf("GIT_INDEX_FILE: %q", got)
	}
}

func TestGuardPaths(t *testing.T) {
	g := repotest.NewGitStore(t)
	proj := startAgent(t, g.S, domain.CategoryProject)
	meta := startAgent(t, g.S, domain.CategoryMeta)
	sub := filepath.Join(g.Dir, "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{"main.go", "../.todos/config.yaml", filepath.Join(g.Dir, ".todos", "issues", "td-a.md"), "../../elsewhere.txt", "../.git/hooks/pre-commit", "../.todos/local/current"}
	rep, err := GuardPaths(g.S, proj, sub, paths)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.ToSlash(filepath.Join(filepath.Dir(g.Dir), "elsewhere.txt"))
	want := " code src/main.go true\n" +
		" meta .todos/config.yaml false\n" +
		" issue .todos/issues/td-a.md true\n" +
		" outside " + outside + " true\n" +
		" meta .git/hooks/pre-commit false\n" +
		" local .todos/local/current true\n"
	if got := verdicts(rep); got != want {
		t.Errorf("project agent:\n%s\nwant:\n%s", got, want)
	}
	if rep.Staged {
		t.Error("named paths reported as staged")
	}
	// A ledger td wrote is still refused by name: the check is about a
	// change the session is about to make by hand.
	rep, err = GuardPaths(g.S, proj, g.Dir, []string{".todos/sessions/" + proj.ID + ".yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused()) != 1 {
		t.Errorf("named meta path passed: %+v", rep.Checked)
	}
	rep, err = GuardPaths(g.S, meta, sub, []string{"main.go", "../.todos/config.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " code src/main.go false\n meta .todos/config.yaml true\n" {
		t.Errorf("meta agent:\n%s", got)
	}
	if _, err := GuardPaths(g.S, meta, sub, []string{""}); repo.CodeOf(err) != repo.CodeInvalid {
		t.Errorf("empty path: %v", err)
	}
}

func TestGuardHooksPathInsideTheTree(t *testing.T) {
	g := repotest.NewGitStore(t)
	proj := startAgent(t, g.S, domain.CategoryProject)
	g.Git("config", "core.hooksPath", ".githooks")
	g.Reopen()
	rep, err := GuardPaths(g.S, proj, g.Dir, []string{".githooks/pre-commit", ".githooksx"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " meta .githooks/pre-commit false\n code .githooksx true\n" {
		t.Errorf("hooks path:\n%s", got)
	}
}

func TestGuardWithoutGit(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	if _, err := GuardStaged(s, se); repo.CodeOf(err) != repo.CodeRefused || !strings.Contains(err.Error(), "td guard PATH") {
		t.Errorf("--staged without git: %v", err)
	}
	rep, err := GuardPaths(s, se, s.Root, []string{".todos/config.yaml", "x.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " meta .todos/config.yaml true\n code x.go true\n" {
		t.Errorf("operator without git:\n%s", got)
	}
}

func TestGuardGitModeOff(t *testing.T) {
	g := repotest.NewGitStore(t)
	cfg := filepath.Join(g.Dir, ".todos", "config.yaml")
	data, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "mode: stage", "mode: off", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Commit("init")
	g.Reopen()
	se := startAgent(t, g.S, domain.CategoryProject)
	if _, err := issues.Create(g.S, se, issues.CreateOptions{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if out := g.Git("diff", "--cached", "--name-only"); out != "" {
		t.Fatalf("mode off staged %s", out)
	}
	// The user stages td's files by hand: they are still td's writes.
	g.Git("add", ".todos")
	rep := guardStaged(t, g.S, se)
	if r := rep.Refused(); len(r) != 0 || len(rep.Checked) != 3 {
		t.Errorf("mode off: %s", verdicts(rep))
	}
}

func TestGuardMerge(t *testing.T) {
	g := repotest.NewGitStore(t)
	g.Commit("init")
	g.Reopen()
	op := repotest.Actor(t, g.S)
	is, err := issues.Create(g.S, op, issues.CreateOptions{Title: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	g.Write("conflict.txt", "base\n")
	g.Commit("base")
	g.Git("checkout", "-q", "-b", "side")
	g.Reopen()
	if _, _, err := issues.Comment(g.S, op, is.ID, "from the side branch"); err != nil {
		t.Fatal(err)
	}
	g.Write(".todos/anchors.md", "# anchors from the side\n")
	g.Write("conflict.txt", "side\n")
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	g.Reopen()
	if _, _, err := issues.Comment(g.S, op, is.ID, "from main"); err != nil {
		t.Fatal(err)
	}
	g.Write("conflict.txt", "main\n")
	g.Commit("main")
	proj := startAgent(t, g.S, domain.CategoryProject)
	g.Commit("agent")
	// A conflict elsewhere leaves the merge to be finished with git commit,
	// which runs the pre-commit hook.
	cmd := []string{"-c", "merge.conflictstyle=merge", "merge", "-q", "side"}
	if out, err := runGit(g, cmd...); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
	g.Write("conflict.txt", "resolved\n")
	g.Git("add", "conflict.txt")
	g.Reopen()
	rep := guardStaged(t, g.S, proj)
	want := "added meta .todos/anchors.md true\n" +
		"modified meta .todos/history/" + is.ID + ".jsonl true\n" +
		"modified code conflict.txt true\n"
	if got := verdicts(rep); got != want {
		t.Errorf("merge:\n%s\nwant:\n%s", got, want)
	}
	if rep.Checked[0].Reason != "meta path, as the merge brought it" {
		t.Errorf("reason: %q", rep.Checked[0].Reason)
	}
	// An edit on top of what the merge brought is the session's own.
	g.Write(".todos/anchors.md", "# anchors, edited during the merge\n")
	g.Git("add", ".todos/anchors.md")
	ledger := ".todos/history/" + is.ID + ".jsonl"
	data, _ := os.ReadFile(filepath.Join(g.Dir, ledger))
	g.Write(ledger, string(data)+`{"forged":true}`+"\n")
	g.Git("add", ledger)
	rep = guardStaged(t, g.S, proj)
	if r := rep.Refused(); len(r) != 2 {
		t.Errorf("edits during the merge passed:\n%s", verdicts(rep))
	}
}

func runGit(g *repotest.GitStore, args ...string) (string, error) {
	out, err := gitCommand(g, args...).CombinedOutput()
	return string(out), err
}

// Todo mutations write only the issue file, which is not a meta path: they
// add nothing to the journal.
func TestJournalSkipsIssueFiles(t *testing.T) {
	g := repotest.NewGitStore(t)
	se := repotest.Actor(t, g.S)
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	j := g.S.ReadJournal()
	if _, ok := j[".todos/issues/"+is.ID+".md"]; ok || len(j) != 2 {
		t.Errorf("journal after create: %v", j)
	}
}

func gitCommand(g *repotest.GitStore, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.Dir, append(os.Environ(), g.Env...)
	return cmd
}
