package gitrepo

import "testing"

func TestBranchHolds(t *testing.T) {
	r := newRepo(t)
	dir := r.Root()
	writeFile(t, r, "l.jsonl", "a\n")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "a")
	runGit(t, dir, "checkout", "-q", "-b", "build")
	writeFile(t, r, "l.jsonl", "a\nb\n")
	runGit(t, dir, "commit", "-q", "-am", "b")
	writeFile(t, r, "other", "x\n")
	runGit(t, dir, "add", "other")
	runGit(t, dir, "commit", "-q", "-m", "other")
	runGit(t, dir, "checkout", "-q", "main")

	for _, tc := range []struct {
		name, path, content string
		depth               int
		want                bool
	}{
		{"at a tip", "l.jsonl", "a\nb\n", 0, true},
		{"one commit below a tip", "l.jsonl", "a\nb\n", 1, true},
		{"never committed", "l.jsonl", "a\nb\nc\n", 10, false},
		{"another path's content", "other", "a\nb\n", 10, false},
		{"a path no commit has", "missing/l.jsonl", "a\n", 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.BranchHolds(tc.path, BlobHash([]byte(tc.content)), tc.depth)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("BranchHolds = %v, want %v", got, tc.want)
			}
		})
	}
	// The commit that holds "a\nb\n" is one below build's tip: depth 0
	// looks at the tips only, where l.jsonl is still "a\nb\n" (the last
	// commit did not touch it), so make the tip change it.
	runGit(t, dir, "checkout", "-q", "build")
	writeFile(t, r, "l.jsonl", "a\nb\nd\n")
	runGit(t, dir, "commit", "-q", "-am", "d")
	for depth, want := range []bool{false, true} {
		got, err := r.BranchHolds("l.jsonl", BlobHash([]byte("a\nb\n")), depth)
		if err != nil || got != want {
			t.Errorf("depth %d: BranchHolds = %v, %v; want %v", depth, got, err, want)
		}
	}
}
