package gitrepo

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// dirChangesOf flattens DirHistory's answer into "path" -> commits (newest
// first), each with "+" when added and "-" when deleted, the shape
// checkHistory uses for PathHistory.
func dirChangesOf(changes []DirChange) map[string][]string {
	out := map[string][]string{}
	for _, ch := range changes {
		for _, f := range ch.Files {
			p := f.Dir + "/" + f.Name
			out[p] = append(out[p], tagged(ch.Commit.Hash, f.Added, f.Deleted))
		}
	}
	return out
}

func pathChangesOf(t *testing.T, r *Repo, p string) []string {
	t.Helper()
	changes, err := r.PathHistory(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return hashes(changes)
}

// TestDirHistoryAgreesWithPathHistory builds a random history of edits,
// adds, deletes, branches and merges in two directories and checks that one
// DirHistory walk reports, for every file, exactly the commits PathHistory
// reports for it; then that an incremental walk from a known commit reports
// exactly the newer part.
func TestDirHistoryAgreesWithPathHistory(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	rng := rand.New(rand.NewSource(7))
	dirs := []string{".todos/issues", ".todos/history"}
	live := map[string]int{}
	edit := func(n int) map[string]string {
		files := map[string]string{}
		for i := 0; i < n; i++ {
			p := fmt.Sprintf("%s/f%d", dirs[rng.Intn(2)], rng.Intn(8))
			switch {
			case live[p] > 0 && rng.Intn(5) == 0:
				files[p] = ""
				delete(live, p)
			default:
				live[p]++
				files[p] = fmt.Sprintf("%s v%d %d\n", p, live[p], rng.Int())
			}
		}
		if rng.Intn(4) == 0 {
			files["src/code.go"] = fmt.Sprintf("package x // %d\n", rng.Int())
		}
		return files
	}
	h.commit("root\n", edit(3))
	var middle string
	// -short keeps the merges (i = 3, 7), the change of mode (i = 4) and
	// the incremental walk's middle (i = 6) and drops the last commits.
	steps := 12
	if testing.Short() {
		steps = 8
	}
	for i := 0; i < steps; i++ {
		if i == 6 {
			middle = h.git(nil, "", "rev-parse", "HEAD")
		}
		if i%4 == 3 {
			branch := fmt.Sprintf("b%d", i)
			h.git(nil, "", "checkout", "-q", "-b", branch)
			saved := map[string]int{}
			for k, v := range live {
				saved[k] = v
			}
			// The side branch touches its own files, so the merge is clean.
			files := map[string]string{fmt.Sprintf(".todos/issues/side%d", i): "side\n", fmt.Sprintf(".todos/history/side%d", i): "side\n"}
			h.commit("side\n", files)
			h.git(nil, "", "checkout", "-q", "main")
			h.commit("main\n", edit(2))
			h.merge(branch)
			continue
		}
		if i%5 == 4 {
			// A change of mode alone is a change too, as PathHistory counts.
			names := make([]string, 0, len(live))
			for p := range live {
				names = append(names, p)
			}
			sort.Strings(names)
			if len(names) > 0 {
				p := names[i%len(names)]
				if err := os.Chmod(filepath.Join(h.r.Root(), filepath.FromSlash(p)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			h.commit(fmt.Sprintf("chmod %d\n", i), nil)
			continue
		}
		h.commit(fmt.Sprintf("c%d\n", i), edit(1+rng.Intn(3)))
	}

	head, walked, changes, err := h.r.DirHistory(dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := h.git(nil, "", "rev-parse", "HEAD"); head != want {
		t.Fatalf("head %s, want %s", head, want)
	}
	if all := strings.Fields(h.git(nil, "", "rev-list", "HEAD")); len(walked) != len(all) {
		t.Errorf("walked %d commits, HEAD has %d", len(walked), len(all))
	}
	got := dirChangesOf(changes)
	if len(got) < 10 {
		t.Fatalf("only %d files changed; the history is too thin to test anything", len(got))
	}
	paths := map[string]bool{}
	for p := range got {
		paths[p] = true
	}
	for _, d := range dirs {
		for i := 0; i < 8; i++ {
			paths[fmt.Sprintf("%s/f%d", d, i)] = true
		}
	}
	var sorted []string
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		want := pathChangesOf(t, h.r, p)
		if !slices.Equal(got[p], want) {
			t.Errorf("%s: DirHistory says %v, PathHistory says %v", p, got[p], want)
		}
	}

	// Incremental: knowing every commit up to middle, only newer ones come
	// back, and they are the newer part of the full answer.
	known := map[string]bool{}
	for _, c := range strings.Fields(h.git(nil, "", "rev-list", middle)) {
		known[c] = true
	}
	_, _, newer, err := h.r.DirHistory(dirs, func(c string) bool { return known[c] })
	if err != nil {
		t.Fatal(err)
	}
	var wantNewer []DirChange
	for _, ch := range changes {
		if !known[ch.Commit.Hash] {
			wantNewer = append(wantNewer, ch)
		}
	}
	if len(newer) != len(wantNewer) {
		t.Fatalf("incremental walk found %d commits, want %d", len(newer), len(wantNewer))
	}
	for i := range newer {
		if newer[i].Commit.Hash != wantNewer[i].Commit.Hash || !slices.Equal(newer[i].Files, wantNewer[i].Files) {
			t.Errorf("incremental %d: %s %v, want %s %v", i, newer[i].Commit.Hash, newer[i].Files, wantNewer[i].Commit.Hash, wantNewer[i].Files)
		}
	}
	// Knowing HEAD means nothing to do.
	_, walked, newer, err = h.r.DirHistory(dirs, func(c string) bool { return c == head })
	if err != nil || len(newer) != 0 || len(walked) != 0 {
		t.Errorf("a known HEAD walked %d and found %d, %v", len(walked), len(newer), err)
	}
}

func TestDirHistoryUnborn(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	head, walked, changes, err := h.r.DirHistory([]string{".todos/issues"}, nil)
	if err != nil || head != "" || walked != nil || changes != nil {
		t.Fatalf("unborn: %q %v %v %v", head, walked, changes, err)
	}
}

// TestHistoryInAShallowClone checks that the walks stop at a shallow
// clone's boundary, as git log does, instead of failing on the parents the
// clone does not have. CI systems and agents often work in such clones.
func TestHistoryInAShallowClone(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/td-1.md"
	for i := 0; i < 5; i++ {
		h.commit(fmt.Sprintf("c%d\n", i), map[string]string{f: fmt.Sprintf("v%d\n", i)})
	}
	dir := filepath.Join(t.TempDir(), "shallow")
	h.git(nil, "", "clone", "-q", "--depth", "2", "file://"+h.r.Root(), dir)
	if _, err := os.Stat(filepath.Join(dir, ".git", "shallow")); err != nil {
		t.Fatalf("the clone is not shallow: %v", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := r.PathHistory(f, 0)
	if err != nil {
		t.Fatalf("PathHistory in a shallow clone: %v", err)
	}
	// The boundary commit is a snapshot, not a change: it is not reported
	// (it would otherwise "add" every file, and its trailers would touch
	// every issue).
	if len(changes) != 1 || changes[0].Added {
		t.Fatalf("PathHistory found %+v, want the one commit above the boundary, not an add", changes)
	}
	_, walked, dirChanges, err := r.DirHistory([]string{".todos/issues"}, nil)
	if err != nil {
		t.Fatalf("DirHistory in a shallow clone: %v", err)
	}
	if len(walked) != 2 || len(dirChanges) != 1 {
		t.Fatalf("DirHistory walked %d commits and found %d changes, want 2 and 1", len(walked), len(dirChanges))
	}
	c, err := r.CommitAt(walked[1])
	if err != nil || len(c.Parents) != 0 || !c.Shallow {
		t.Fatalf("the boundary commit should read as a shallow root: %+v %v", c, err)
	}
}
