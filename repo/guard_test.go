package repo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
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

func guardStaged(t *testing.T, s *Store, se *Session) *GuardReport {
	t.Helper()
	rep, err := s.GuardStaged(se)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func startAgent(t *testing.T, s *Store, category domain.Category) *Session {
	t.Helper()
	se, err := s.StartSession(StartOptions{Agent: "primary", Category: category})
	if err != nil {
		t.Fatal(err)
	}
	return se
}

func TestGuardProjectAgent(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	se := startAgent(t, g.s, domain.CategoryProject)
	is, err := g.s.CreateIssue(se, CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	g.Write("main.go", "package main\n")
	g.git("add", "main.go")

	// td wrote the ledger and the session file for the agent: they pass.
	rep := guardStaged(t, g.s, se)
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
	g.commit("work")
	g.reopen()

	// Hand edits of the config and of the ledger td wrote, staged with git
	// add, are refused.
	ledger := ".todos/history/" + is.ID + ".jsonl"
	g.Write(".todos/config.yaml", "id_prefix: td\noperators: []\n")
	data, _ := os.ReadFile(filepath.Join(g.dir, ledger))
	g.Write(ledger, string(data)+`{"ts":"2026-11-21T10:00:00Z","session":"ses_forged00","action":"approved"}`+"\n")
	g.git("add", ".todos/config.yaml", ledger)
	rep = guardStaged(t, g.s, se)
	refused := rep.Refused()
	if len(refused) != 2 || refused[0].Path != ".todos/config.yaml" || refused[1].Path != ledger {
		t.Fatalf("refused: %+v", refused)
	}
	if !strings.Contains(refused[0].Reason, "run td as a meta session") {
		t.Errorf("reason: %q", refused[0].Reason)
	}

	// td appending to the hand-edited ledger does not launder the edit.
	if _, _, err := g.s.Comment(se, is.ID, "after the forged line"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.s, se)); got != "modified meta .todos/config.yaml false\nmodified meta "+ledger+" false\n" {
		t.Errorf("after td appended to a hand edit:\n%s", got)
	}

	// Back to HEAD's files, td's writes pass again, the unstaged hand
	// edit of a file td did not touch is not part of the change.
	g.git("checkout", "HEAD", "--", ".todos/config.yaml", ledger)
	g.Write("main.go", "package main // edited\n")
	if _, _, err := g.s.Comment(se, is.ID, "through td"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := g.s.Comment(se, is.ID, "and again"); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, g.s, se)); got != "modified meta "+ledger+" true\n" {
		t.Errorf("td's writes from HEAD:\n%s", got)
	}

	// A deletion by hand of a meta file td never deleted is refused.
	g.git("rm", "-q", ".todos/sessions/"+se.ID+".yaml")
	rep = guardStaged(t, g.s, se)
	if got := verdicts(rep); !strings.Contains(got, "deleted meta .todos/sessions/"+se.ID+".yaml false\n") {
		t.Errorf("deleted session file:\n%s", got)
	}
}

func TestTdChain(t *testing.T) {
	a, b, c, x := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("x", 40)
	for _, tc := range []struct {
		name         string
		entries      []JournalEntry
		staged, head string
		want         bool
	}{
		{"no writes", nil, a, "-", false},
		{"one write from nothing", []JournalEntry{{a, "-"}}, a, "-", true},
		{"one write from HEAD", []JournalEntry{{b, a}}, b, a, true},
		{"a chain from HEAD", []JournalEntry{{b, a}, {c, b}}, c, a, true},
		{"a chain whose start HEAD holds", []JournalEntry{{a, "-"}, {b, a}, {c, b}}, c, b, true},
		{"a hand edit between two writes", []JournalEntry{{b, a}, {c, x}}, c, a, false},
		{"a hand edit before the first write", []JournalEntry{{c, x}}, c, a, false},
		{"staged is not td's", []JournalEntry{{b, a}}, x, a, false},
		{"staged is an earlier write of td's", []JournalEntry{{b, a}, {c, b}}, b, a, true},
		{"td could not read the file", []JournalEntry{{b, "?"}}, b, a, false},
		{"a deletion td made", []JournalEntry{{"-", a}}, "-", a, true},
		{"a branch switch: HEAD moved", []JournalEntry{{b, a}, {c, x}}, c, x, true},
	} {
		if got := tdChain(tc.entries, tc.staged, tc.head); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGuardMetaAgentAndOperator(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	meta := startAgent(t, g.s, domain.CategoryMeta)
	g.Write("main.go", "package main\n")
	g.Write(".todos/config.yaml", "id_prefix: td\noperators: []\n")
	g.Write(".todos/issues/td-aaaaaa.md", "---\nid: td-aaaaaa\ntitle: x\n---\n")
	g.Write(".todos/local/junk", "local\n")
	g.git("add", "main.go", ".todos/config.yaml", ".todos/issues/td-aaaaaa.md")
	g.git("add", "-f", ".todos/local/junk")
	rep := guardStaged(t, g.s, meta)
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
	op := actor(t, g.s)
	for _, se := range []*Session{op, nil} {
		rep = guardStaged(t, g.s, se)
		if r := rep.Refused(); len(r) != 0 || rep.Role != domain.RoleOperator {
			t.Errorf("operator %v: role %s, refused %+v", se != nil, rep.Role, r)
		}
	}
	if rep.Session != "" || rep.Author != "Op <op@example.com>" {
		t.Errorf("no session: %+v", rep)
	}
}

func TestGuardReadsTheIndexGitNames(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	meta := startAgent(t, g.s, domain.CategoryMeta)
	g.commit("session")
	g.Write("main.go", "package main\n")
	g.git("add", "main.go")
	// While git commit runs a hook for git commit -a or a commit of named
	// paths, GIT_INDEX_FILE names the index being committed.
	alt := filepath.Join(g.dir, ".git", "index.alt")
	data, err := os.ReadFile(filepath.Join(g.dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	g.git("reset", "-q")
	if len(guardStaged(t, g.s, meta).Checked) != 0 {
		t.Fatal("the repository's index has changes")
	}
	if err := os.WriteFile(alt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com", "GIT_INDEX_FILE": ".git/index.alt"}
	s, err := Open(g.dir, Options{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(guardStaged(t, s, meta)); got != "added code main.go false\n" {
		t.Errorf("GIT_INDEX_FILE: %q", got)
	}
}

func TestGuardPaths(t *testing.T) {
	g := newGitStore(t)
	proj := startAgent(t, g.s, domain.CategoryProject)
	meta := startAgent(t, g.s, domain.CategoryMeta)
	sub := filepath.Join(g.dir, "src")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{"main.go", "../.todos/config.yaml", filepath.Join(g.dir, ".todos", "issues", "td-a.md"), "../../elsewhere.txt", "../.git/hooks/pre-commit", "../.todos/local/current"}
	rep, err := g.s.GuardPaths(proj, sub, paths)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.ToSlash(filepath.Join(filepath.Dir(g.dir), "elsewhere.txt"))
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
	rep, err = g.s.GuardPaths(proj, g.dir, []string{".todos/sessions/" + proj.ID + ".yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused()) != 1 {
		t.Errorf("named meta path passed: %+v", rep.Checked)
	}
	rep, err = g.s.GuardPaths(meta, sub, []string{"main.go", "../.todos/config.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " code src/main.go false\n meta .todos/config.yaml true\n" {
		t.Errorf("meta agent:\n%s", got)
	}
	if _, err := g.s.GuardPaths(meta, sub, []string{""}); CodeOf(err) != CodeInvalid {
		t.Errorf("empty path: %v", err)
	}
}

func TestGuardHooksPathInsideTheTree(t *testing.T) {
	g := newGitStore(t)
	proj := startAgent(t, g.s, domain.CategoryProject)
	g.git("config", "core.hooksPath", ".githooks")
	g.reopen()
	rep, err := g.s.GuardPaths(proj, g.dir, []string{".githooks/pre-commit", ".githooksx"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " meta .githooks/pre-commit false\n code .githooksx true\n" {
		t.Errorf("hooks path:\n%s", got)
	}
}

func TestGuardWithoutGit(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	if _, err := s.GuardStaged(se); CodeOf(err) != CodeRefused || !strings.Contains(err.Error(), "td guard PATH") {
		t.Errorf("--staged without git: %v", err)
	}
	rep, err := s.GuardPaths(se, s.Root, []string{".todos/config.yaml", "x.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rep); got != " meta .todos/config.yaml true\n code x.go true\n" {
		t.Errorf("operator without git:\n%s", got)
	}
}

func TestGuardGitModeOff(t *testing.T) {
	g := newGitStore(t)
	cfg := filepath.Join(g.dir, ".todos", "config.yaml")
	data, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(data), "mode: stage", "mode: off", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	g.commit("init")
	g.reopen()
	se := startAgent(t, g.s, domain.CategoryProject)
	if _, err := g.s.CreateIssue(se, CreateOptions{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if out := g.git("diff", "--cached", "--name-only"); out != "" {
		t.Fatalf("mode off staged %s", out)
	}
	// The user stages td's files by hand: they are still td's writes.
	g.git("add", ".todos")
	rep := guardStaged(t, g.s, se)
	if r := rep.Refused(); len(r) != 0 || len(rep.Checked) != 3 {
		t.Errorf("mode off: %s", verdicts(rep))
	}
}

func TestGuardMerge(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	op := actor(t, g.s)
	is, err := g.s.CreateIssue(op, CreateOptions{Title: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	g.Write("conflict.txt", "base\n")
	g.commit("base")
	g.git("checkout", "-q", "-b", "side")
	g.reopen()
	if _, _, err := g.s.Comment(op, is.ID, "from the side branch"); err != nil {
		t.Fatal(err)
	}
	g.Write(".todos/anchors.md", "# anchors from the side\n")
	g.Write("conflict.txt", "side\n")
	g.commit("side")
	g.git("checkout", "-q", "main")
	g.reopen()
	if _, _, err := g.s.Comment(op, is.ID, "from main"); err != nil {
		t.Fatal(err)
	}
	g.Write("conflict.txt", "main\n")
	g.commit("main")
	proj := startAgent(t, g.s, domain.CategoryProject)
	g.commit("agent")
	// A conflict elsewhere leaves the merge to be finished with git commit,
	// which runs the pre-commit hook.
	cmd := []string{"-c", "merge.conflictstyle=merge", "merge", "-q", "side"}
	if out, err := runGit(g, cmd...); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
	g.Write("conflict.txt", "resolved\n")
	g.git("add", "conflict.txt")
	g.reopen()
	rep := guardStaged(t, g.s, proj)
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
	g.git("add", ".todos/anchors.md")
	ledger := ".todos/history/" + is.ID + ".jsonl"
	data, _ := os.ReadFile(filepath.Join(g.dir, ledger))
	g.Write(ledger, string(data)+`{"forged":true}`+"\n")
	g.git("add", ledger)
	rep = guardStaged(t, g.s, proj)
	if r := rep.Refused(); len(r) != 2 {
		t.Errorf("edits during the merge passed:\n%s", verdicts(rep))
	}
}

func runGit(g *gitStore, args ...string) (string, error) {
	out, err := gitCommand(g, args...).CombinedOutput()
	return string(out), err
}

// Todo mutations write only the issue file, which is not a meta path: they
// add nothing to the journal.
func TestJournalSkipsIssueFiles(t *testing.T) {
	g := newGitStore(t)
	se := actor(t, g.s)
	is, err := g.s.CreateIssue(se, CreateOptions{Title: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	j := g.s.ReadJournal()
	if _, ok := j[".todos/issues/"+is.ID+".md"]; ok || len(j) != 2 {
		t.Errorf("journal after create: %v", j)
	}
}

func gitCommand(g *gitStore, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.dir, append(os.Environ(), g.env...)
	return cmd
}
