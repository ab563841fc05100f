package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func recordCommit(t *testing.T, r *Repo, msg string) string {
	t.Helper()
	who := Signature{Name: "Ada", Email: "ada@example.com", When: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	h, err := r.WriteRecordCommit(msg, who, who)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestUpdateRefCompareAndSwap(t *testing.T) {
	r := newRepo(t)
	a, b := recordCommit(t, r, "claim a\n"), recordCommit(t, r, "claim b\n")
	const name = "refs/td/claims/td-aaaaaa"
	steps := []struct {
		old, new string
		moved    bool
		want     string
	}{
		{old: "", new: a, want: a},
		{old: "", new: b, moved: true, want: a}, // exists already
		{old: b, new: a, moved: true, want: a},  // wrong expectation
		{old: a, new: b, want: b},
		{old: a, new: "", moved: true, want: b},
		{old: b, new: "", want: ""},
		{old: "", new: "", want: ""}, // deleting what is gone is a no-op
	}
	for i, st := range steps {
		err := r.UpdateRef(name, st.old, st.new)
		if got := errors.Is(err, ErrRefMoved); got != st.moved {
			t.Fatalf("step %d: err %v, want moved %v", i, err, st.moved)
		}
		if !st.moved && err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got, err := r.ReadRef(name)
		if err != nil || got != st.want {
			t.Fatalf("step %d: ReadRef = %q, %v; want %q", i, got, err, st.want)
		}
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir(), "refs/td/claims/td-aaaaaa.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock left behind: %v", err)
	}
}

func TestUpdateRefRefusesBadNames(t *testing.T) {
	r := newRepo(t)
	h := recordCommit(t, r, "x\n")
	for _, name := range []string{"", "HEAD", "td/claims/x", "refs/td/../x", "refs/td/x.lock", "refs/td/a b"} {
		if err := r.UpdateRef(name, "", h); err == nil {
			t.Errorf("UpdateRef(%q) succeeded", name)
		}
	}
}

// A reference git packed is read, listed under its loose value when both
// exist, and deleted from packed-refs too.
func TestRefsPackedAndLoose(t *testing.T) {
	if !hasGit() {
		t.Skip("needs git")
	}
	r := newRepo(t)
	a, b := recordCommit(t, r, "a\n"), recordCommit(t, r, "b\n")
	for _, n := range []string{"td-aaaaaa", "td-bbbbbb"} {
		if err := r.UpdateRef("refs/td/claims/"+n, "", a); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.UpdateRef("refs/td/other/x", "", a); err != nil {
		t.Fatal(err)
	}
	runGit(t, r.Root(), "pack-refs", "--all")
	if err := r.UpdateRef("refs/td/claims/td-bbbbbb", a, b); err != nil {
		t.Fatal(err)
	}
	refs, err := r.Refs("refs/td/claims/")
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{"refs/td/claims/td-aaaaaa", a}, {"refs/td/claims/td-bbbbbb", b}}
	if len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Fatalf("Refs = %v, want %v", refs, want)
	}
	if err := r.UpdateRef("refs/td/claims/td-aaaaaa", a, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ReadRef("refs/td/claims/td-aaaaaa"); got != "" {
		t.Fatalf("deleted packed ref still reads %s", got)
	}
	out := runGit(t, r.Root(), "for-each-ref", "--format=%(refname) %(objectname)", "refs/td/")
	wantOut := "refs/td/claims/td-bbbbbb " + b + "\nrefs/td/other/x " + a
	if strings.TrimSpace(out) != wantOut {
		t.Fatalf("git for-each-ref:\n%s\nwant\n%s", out, wantOut)
	}
	runGit(t, r.Root(), "fsck", "--strict")
	c := r.Commits([]string{b, "0000000000000000000000000000000000000000", "nothex"})
	if c[0] == nil || c[0].Message != "b\n" || c[1] != nil || c[2] != nil {
		t.Fatalf("Commits = %v", c)
	}
	// RecentCommits finds the same, loose or packed.
	for _, state := range []string{"loose", "packed"} {
		if state == "packed" {
			runGit(t, r.Root(), "repack", "-adq")
			runGit(t, r.Root(), "prune-packed")
		}
		rc := r.RecentCommits([]string{b, a, "0000000000000000000000000000000000000000"})
		if rc[0] == nil || rc[0].Message != "b\n" || rc[1] == nil || rc[1].Hash != a || rc[2] != nil {
			t.Fatalf("RecentCommits of %s commits = %v", state, rc)
		}
	}
}

// A linked work tree reads and writes the references of the main one.
func TestRefsSharedByLinkedWorkTrees(t *testing.T) {
	if !hasGit() {
		t.Skip("needs git")
	}
	r := newRepo(t)
	writeFile(t, r, "a.txt", "a\n")
	runGit(t, r.Root(), "add", "a.txt")
	runGit(t, r.Root(), "commit", "-qm", "first")
	linked := filepath.Join(t.TempDir(), "wt")
	runGit(t, r.Root(), "worktree", "add", "-q", linked)
	l, err := Open(linked)
	if err != nil {
		t.Fatal(err)
	}
	h := recordCommit(t, l, "from the linked tree\n")
	if err := l.UpdateRef("refs/td/claims/td-cccccc", "", h); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ReadRef("refs/td/claims/td-cccccc"); got != h {
		t.Fatalf("main work tree reads %q, want %q", got, h)
	}
	if out := runGit(t, r.Root(), "cat-file", "-t", h); strings.TrimSpace(out) != "commit" {
		t.Fatalf("git cat-file -t = %q", out)
	}
}

// Of many writers racing to create one reference, exactly one wins.
func TestUpdateRefRace(t *testing.T) {
	r := newRepo(t)
	const n = 8
	hashes := make([]string, n)
	for i := range hashes {
		hashes[i] = recordCommit(t, r, "claim "+string(rune('a'+i))+"\n")
	}
	var wg sync.WaitGroup
	wins := make([]bool, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Separate Repo values, as separate processes have.
			o, err := Open(r.Root())
			if err != nil {
				t.Error(err)
				return
			}
			err = o.UpdateRef("refs/td/claims/td-race00", "", hashes[i])
			switch {
			case err == nil:
				wins[i] = true
			case !errors.Is(err, ErrRefMoved):
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	won := -1
	for i, w := range wins {
		if w {
			if won >= 0 {
				t.Fatalf("both %d and %d won", won, i)
			}
			won = i
		}
	}
	if won < 0 {
		t.Fatal("nobody won")
	}
	if got, _ := r.ReadRef("refs/td/claims/td-race00"); got != hashes[won] {
		t.Fatalf("ref holds %s, want the winner's %s", got, hashes[won])
	}
}
