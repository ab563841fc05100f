package resolve

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tdproject/td/markdown"
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

// TestResolveStatusBothSides: where both sides changed the status, td
// resolve keeps the one the merged ledger's last transition gives when
// the rest merges, and only says which one td check --base accepts when
// another conflict (the title) leaves the file for a person.
func TestResolveStatusBothSides(t *testing.T) {
	g := repotest.NewGitStore(t)
	if err := os.Remove(filepath.Join(g.Dir, ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	issue := ".todos/issues/td-aaaaaa.md"
	ledger := ".todos/history/td-aaaaaa.jsonl"
	file := func(title, status string) string {
		return "---\nid: td-aaaaaa\ntitle: " + title + "\ncreated_at: 2026-11-21T10:00:00Z\n\nstatus: " + status + "\n---\n"
	}
	created := `{"ts":"2026-11-21T10:00:00Z","session":"ses_lead0001","action":"created","title":"A"}` + "\n"
	started := `{"ts":"2026-11-21T11:00:00Z","session":"ses_agent001","action":"started","from":"open","to":"in_progress"}` + "\n"
	closed := `{"ts":"2026-11-21T12:00:00Z","session":"ses_lead0001","action":"closed","from":"open","to":"closed"}` + "\n"
	linked := `{"ts":"2026-11-21T13:00:00Z","session":"ses_agent001","action":"linked","kind":"blocked_by","to":"td-bbbbbb"}` + "\n"
	for _, tc := range []struct {
		name        string
		theirsTitle string
		want        File
		wantStatus  string
	}{
		{"kept", "A", File{Path: issue, Merged: true, Conflicts: []string{},
			Note: "status: kept closed (ours) over in_progress, the last transition in the merged ledger (closed by ses_lead0001 at 2026-11-21T12:00:00Z), which td check --base accepts"}, "closed"},
		{"advised", "B", File{Path: issue, Conflicts: []string{"the field title", "the field status"},
			Note: "td check --base accepts status: closed (ours), the last transition in the merged ledger (closed by ses_lead0001 at 2026-11-21T12:00:00Z)"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g.Git("checkout", "-q", "-B", "main")
			g.Write(issue, file("A", "open"))
			g.Write(ledger, created)
			g.Commit("base " + tc.name)
			g.Git("checkout", "-q", "-B", "agent")
			g.Write(issue, file(tc.theirsTitle, "in_progress"))
			// A link after the start: its "to" is an issue, not a status.
			g.Write(ledger, created+started+linked)
			g.Commit("start")
			g.Git("checkout", "-q", "main")
			g.Write(issue, file("A2", "closed"))
			g.Write(ledger, created+closed)
			g.Commit("close")
			if out, err := g.TryGit("merge", "--no-edit", "agent"); err == nil {
				t.Fatalf("the merge was expected to conflict:\n%s", out)
			}
			res, err := Resolve(g.S, []string{".todos/issues"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 || !reflect.DeepEqual(res.Files[0], tc.want) {
				t.Fatalf("files:\n got %+v\nwant %+v", res.Files, tc.want)
			}
			data, err := os.ReadFile(filepath.Join(g.Dir, issue))
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantStatus != "" && !strings.Contains(string(data), "\nstatus: "+tc.wantStatus+"\n") {
				t.Fatalf("the merged file:\n%s", data)
			}
			if tc.wantStatus == "" && len(markdown.Conflicts(data)) == 0 {
				t.Fatalf("a file left for a person lost git's markers:\n%s", data)
			}
			g.Git("merge", "--abort")
		})
	}
}
