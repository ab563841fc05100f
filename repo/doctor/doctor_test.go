package doctor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/sessions"
)

func checks(rep *Report) []string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.Check+" "+p.Path)
	}
	return out
}

// TestHooksAreCheckedOnceInstalled: no hooks at all is fine (they are
// optional); once td's hooks are installed, a missing or non-executable
// one is a problem --fix repairs.
func TestHooksAreCheckedOnceInstalled(t *testing.T) {
	g := repotest.NewGitStore(t)
	rep, err := Run(g.S, Options{})
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("a fresh store: %v, %v", checks(rep), err)
	}
	if _, err := sessions.InstallHooks(g.S, sessions.HookOptions{}); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(g.Dir, ".git", "hooks")
	if err := os.Remove(filepath.Join(hooks, "commit-msg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(hooks, "pre-commit"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(g.S, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := checks(rep)
	if len(got) != 2 || got[0] != "hooks .git/hooks/pre-commit" || got[1] != "hooks .git/hooks/commit-msg" || !rep.Problems[0].Fixable {
		t.Fatalf("problems = %q", got)
	}
	rep, err = Run(g.S, Options{Fix: true})
	if err != nil || rep.Remaining() != 0 {
		t.Fatalf("--fix left %d: %v", rep.Remaining(), err)
	}
	if rep, err = Run(g.S, Options{}); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("after --fix: %q, %v", checks(rep), err)
	}
}
