package gitrepo

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUnmergedReadsTheStagesGitLeft makes git stop on conflicts (a file
// changed on both sides, one added on both sides, one deleted on one side
// and changed on the other) and checks that Unmerged returns each stage
// git wrote, and that staging a file settles its conflict as git add does.
func TestUnmergedReadsTheStagesGitLeft(t *testing.T) {
	r := newRepo(t)
	dir := r.Root()
	writeFile(t, r, "d/both.txt", "base\n")
	writeFile(t, r, "d/gone.txt", "base\n")
	writeFile(t, r, "other.txt", "base\n")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "base")
	runGit(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, r, "d/both.txt", "theirs\n")
	writeFile(t, r, "d/added.txt", "theirs added\n")
	writeFile(t, r, "d/gone.txt", "changed\n")
	writeFile(t, r, "other.txt", "theirs\n")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "side")
	runGit(t, dir, "checkout", "-q", "main")
	writeFile(t, r, "d/both.txt", "ours\n")
	writeFile(t, r, "d/added.txt", "ours added\n")
	writeFile(t, r, "other.txt", "ours\n")
	runGit(t, dir, "rm", "-q", "d/gone.txt")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "main")
	cmd := exec.Command(gitBinary(t), "merge", "-q", "side")
	cmd.Dir = dir
	if err := cmd.Run(); err == nil {
		t.Fatal("the merge was expected to conflict")
	}

	got, err := r.Unmerged("d")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, u := range got {
		paths = append(paths, u.Path)
	}
	if strings.Join(paths, " ") != "d/added.txt d/both.txt d/gone.txt" {
		t.Fatalf("unmerged paths under d: %q", paths)
	}
	added, both, gone := got[0], got[1], got[2]
	if added.HasBase || string(added.Ours) != "ours added\n" || string(added.Theirs) != "theirs added\n" {
		t.Errorf("added on both sides: %+v", added)
	}
	if string(both.Base) != "base\n" || string(both.Ours) != "ours\n" || string(both.Theirs) != "theirs\n" || !both.HasBase || !both.HasOurs || !both.HasTheirs {
		t.Errorf("changed on both sides: %+v", both)
	}
	if gone.HasOurs || string(gone.Base) != "base\n" || string(gone.Theirs) != "changed\n" {
		t.Errorf("deleted on ours: %+v", gone)
	}
	if all, err := r.Unmerged(""); err != nil || len(all) != 4 {
		t.Fatalf("Unmerged(\"\") = %d paths, %v; want 4", len(all), err)
	}

	writeFile(t, r, "d/both.txt", "merged\n")
	if err := r.Stage("d/both.txt"); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Unmerged("d"); err != nil || len(got) != 2 {
		t.Fatalf("after staging d/both.txt, Unmerged = %+v, %v", got, err)
	}
	if out := runGit(t, dir, "diff", "--name-only", "--diff-filter=U"); strings.Contains(out, "d/both.txt") {
		t.Fatalf("git still sees d/both.txt unmerged:\n%s", out)
	}
	if out := runGit(t, dir, "show", ":d/both.txt"); out != "merged\n" {
		t.Fatalf("git's stage 0 of d/both.txt = %q", out)
	}
}
