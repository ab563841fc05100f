package resolve

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/repotest"
)

// TestResolveUnionsLedgersAndLeavesDeletions merges without any
// .gitattributes, so git conflicts on a ledger both sides appended to and
// on a file one side deleted. td resolve unions the ledger and stages it,
// and leaves the deletion to the person.
func TestResolveUnionsLedgersAndLeavesDeletions(t *testing.T) {
	g := repotest.NewGitStore(t)
	if err := os.Remove(filepath.Join(g.Dir, ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	ledger := ".todos/history/td-aaaaaa.jsonl"
	notes := ".todos/anchors.md"
	g.Write(ledger, "{\"n\":1}\n")
	g.Write(notes, "# Anchors\n\n- base\n")
	g.Commit("base")
	g.Git("checkout", "-q", "-b", "side")
	g.Write(ledger, "{\"n\":1}\n{\"n\":\"theirs\"}\n")
	g.Git("rm", "-q", notes)
	g.Commit("side")
	g.Git("checkout", "-q", "main")
	g.Write(ledger, "{\"n\":1}\n{\"n\":\"ours\"}\n")
	g.Write(notes, "# Anchors\n\n- changed\n")
	g.Commit("main")
	if out, err := g.TryGit("merge", "--no-edit", "side"); err == nil {
		t.Fatalf("the merge was expected to conflict:\n%s", out)
	}

	if _, err := Resolve(g.S, []string{".todos/issues"}); err == nil || !strings.Contains(err.Error(), "has no unfinished merge") {
		t.Fatalf("a path without conflicts: %v", err)
	}
	res, err := Resolve(g.S, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Path: notes, Conflicts: []string{"the file's existence (theirs deleted it, the other side changed it)"}, Note: "keep it with git add or delete it with git rm"},
		{Path: ledger, Merged: true, Conflicts: []string{}},
	}
	if !reflect.DeepEqual(res.Files, want) {
		t.Fatalf("files:\n got %+v\nwant %+v", res.Files, want)
	}
	data, err := os.ReadFile(filepath.Join(g.Dir, ledger))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "{\"n\":1}\n{\"n\":\"ours\"}\n{\"n\":\"theirs\"}\n" {
		t.Fatalf("ledger = %q", data)
	}
	if out := g.Git("diff", "--name-only", "--diff-filter=U"); out != notes {
		t.Fatalf("still unmerged: %q, want only %s", out, notes)
	}
	// Run again: the ledger is merged, only the deletion is left.
	res, err = Resolve(g.S, nil)
	if err != nil || len(res.Files) != 1 || res.Files[0].Path != notes || res.Merged() != 0 {
		t.Fatalf("second run: %+v, %v", res, err)
	}
}
