package gitrepo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// splitRepo makes a repository whose index git has split, then changed so
// that its link extension deletes, replaces and adds entries, and a copy
// of it whose index git wrote whole: the oracle.
func splitRepo(t *testing.T) (split, whole *Repo) {
	t.Helper()
	gitBinary(t)
	r := newRepo(t)
	old := time.Now().Add(-time.Hour)
	put := func(rel, content string) {
		writeFile(t, r, rel, content)
		// Older than any index git writes: no entry is racily clean, so
		// git writes the same stat data into both forms.
		if err := os.Chtimes(filepath.Join(r.Root(), rel), old, old); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		put(fmt.Sprintf(".todos/issues/td-%04d.md", i), fmt.Sprintf("issue %d\n", i))
	}
	put("README.md", "readme\n")
	runGit(t, r.Root(), "add", "-A")
	runGit(t, r.Root(), "commit", "-q", "-m", "base")
	runGit(t, r.Root(), "update-index", "--split-index")
	// Sizes differ from the committed "issue N\n": with the same size and
	// mtime, git add could take a file for unchanged within a second.
	put(".todos/issues/td-0007.md", "changed, and longer\n")
	put(".todos/issues/td-0150.md", "changed too, and longer\n")
	put(".todos/issues/td-0075x.md", "added in the middle\n")
	put("zzz.txt", "added last\n")
	put("a.txt", "added first\n")
	runGit(t, r.Root(), "rm", "-q", "--cached", ".todos/issues/td-0100.md", ".todos/issues/td-0199.md")
	runGit(t, r.Root(), "add", ".todos/issues/td-0007.md", ".todos/issues/td-0150.md", ".todos/issues/td-0075x.md", "zzz.txt", "a.txt")

	dir := t.TempDir()
	cp := exec.Command("cp", "-a", r.Root()+"/.", dir)
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	runGit(t, dir, "update-index", "--no-split-index")
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

// readIndexLayout reads r's .git/index as its file has it, and lays it out.
func readIndexLayout(t *testing.T, r *Repo) ([]byte, *scannedIndex) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(r.gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := scanIndex(raw)
	if err != nil {
		t.Fatal(err)
	}
	return raw, ix
}

// TestSplitIndexExpandsAsGitWritesItWhole: the entries td reads from a
// split index are, byte for byte, those git writes when it unsplits it.
func TestSplitIndexExpandsAsGitWritesItWhole(t *testing.T) {
	r, w := splitRepo(t)
	_, split := readIndexLayout(t, r)
	if len(split.link) <= hashLen {
		t.Fatalf("git wrote no bitmaps (link of %d bytes): the test tests nothing", len(split.link))
	}
	got, _, err := readIndexFile(r.gitDir, filepath.Join(r.gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := readIndexFile(w.gitDir, filepath.Join(w.gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := scanIndex(got)
	if err != nil {
		t.Fatal(err)
	}
	o, err := scanIndex(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.entries) != len(o.entries) {
		t.Fatalf("%d entries, git has %d", len(g.entries), len(o.entries))
	}
	for i := range o.entries {
		ge, oe := g.entries[i], o.entries[i]
		if !bytes.Equal(got[ge.off:ge.off+ge.size], want[oe.off:oe.off+oe.size]) {
			t.Fatalf("entry %d: %s, git has %s", i, ge.name, oe.name)
		}
	}
	for _, name := range []string{".todos/issues/td-0100.md", ".todos/issues/td-0199.md"} {
		for _, e := range g.entries {
			if string(e.name) == name {
				t.Fatalf("%s was deleted and is still listed", name)
			}
		}
	}

	// Every reader sees the whole index.
	hashes, err := r.CleanIndexHashes(".todos")
	if err != nil {
		t.Fatal(err)
	}
	if len(hashes) != 199 { // 200 - 2 deleted + 1 added
		var missing []string
		for _, e := range o.entries {
			if _, ok := hashes[string(e.name)]; !ok && strings.HasPrefix(string(e.name), ".todos/") {
				missing = append(missing, string(e.name))
			}
		}
		t.Fatalf("CleanIndexHashes vouches for %d files, want 199; not for %v", len(hashes), missing)
	}
	changes, err := r.StagedChanges()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
	}
	if got, want := strings.Join(names, " "), ".todos/issues/td-0007.md .todos/issues/td-0075x.md .todos/issues/td-0100.md .todos/issues/td-0150.md .todos/issues/td-0199.md a.txt zzz.txt"; got != want {
		t.Fatalf("staged changes %s\nwant %s", got, want)
	}
}

// TestStageIntoSplitIndex: td stages into a split index by writing a
// split index of the same shared one, which git reads and agrees with.
func TestStageIntoSplitIndex(t *testing.T) {
	r, _ := splitRepo(t)
	link := func() []byte {
		_, ix := readIndexLayout(t, r)
		if len(ix.entries) > 20 {
			t.Fatalf("the index holds %d entries itself: td wrote it whole", len(ix.entries))
		}
		return ix.link
	}
	before := link()
	writeFile(t, r, ".todos/issues/td-0008.md", "staged by td\n")
	writeFile(t, r, ".todos/issues/td-9999.md", "new, staged by td\n")
	if err := r.Stage(".todos/issues/td-0008.md", ".todos/issues/td-9999.md"); err != nil {
		t.Fatal(err)
	}
	// Still split, on the same shared index.
	if after := link(); len(after) < hashLen || !bytes.Equal(after[:hashLen], before[:hashLen]) {
		t.Fatalf("link %x, want the shared index %x", after, before[:hashLen])
	}
	want := "M  .todos/issues/td-0007.md\nM  .todos/issues/td-0008.md\nA  .todos/issues/td-0075x.md\n" +
		"D  .todos/issues/td-0100.md\nM  .todos/issues/td-0150.md\nD  .todos/issues/td-0199.md\nA  .todos/issues/td-9999.md\nA  a.txt\nA  zzz.txt\n" +
		"?? .todos/issues/td-0100.md\n?? .todos/issues/td-0199.md\n"
	checkGit(t, r, want, ".todos/issues/td-0008.md", ".todos/issues/td-9999.md")
	// git splits it again at its own next write, and still agrees.
	runGit(t, r.Root(), "update-index", "--split-index")
	checkGit(t, r, want)
}

// TestSplitIndexRefusals: what td cannot read of a split index is an
// error naming it, never an index read as if it held only its own
// entries.
func TestSplitIndexRefusals(t *testing.T) {
	r, _ := splitRepo(t)
	raw, split := readIndexLayout(t, r)
	shared := filepath.Join(r.gitDir, fmt.Sprintf("sharedindex.%x", split.link[:hashLen]))
	data, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(){
		"shared index missing": func() { os.Remove(shared) },
		"shared index cut":     func() { os.WriteFile(shared, data[:len(data)/2], 0o644) },
		"split index bit flip": func() {
			b := bytes.Clone(raw)
			b[len(b)/2] ^= 1
			os.WriteFile(filepath.Join(r.gitDir, "index"), b, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			damage()
			defer os.WriteFile(shared, data, 0o644)
			defer os.WriteFile(filepath.Join(r.gitDir, "index"), raw, 0o644)
			if _, err := r.StagedChanges(); err == nil || !strings.Contains(err.Error(), "split index") {
				t.Fatalf("StagedChanges: %v, want a split index error", err)
			}
			// Staging refuses too, and writes nothing over what it
			// could not read.
			index, _ := os.ReadFile(filepath.Join(r.gitDir, "index"))
			writeFile(t, r, ".todos/issues/td-0003.md", "staged over a damaged index\n")
			if err := r.Stage(".todos/issues/td-0003.md"); err == nil || !strings.Contains(err.Error(), "split index") {
				t.Fatalf("Stage: %v, want a split index error", err)
			}
			if after, _ := os.ReadFile(filepath.Join(r.gitDir, "index")); !bytes.Equal(after, index) {
				t.Error("Stage changed the index it could not read")
			}
			if l := gitLocks(t, r.Root()); len(l) != 0 {
				t.Errorf("locks left: %q", l)
			}
		})
	}
}

func TestReadEWAH(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for range 500 {
		n := rng.IntN(700)
		set := make([]bool, n)
		for i := range set {
			set[i] = rng.IntN(9) == 0
		}
		data := append(encodeEWAH(set), "rest"...)
		got := make([]bool, n)
		used, err := readEWAH(data, got)
		if err != nil || used != len(data)-4 || !slices.Equal(got, set) {
			t.Fatalf("n=%d: read %v, %d bytes of %d, equal %v", n, err, used, len(data)-4, slices.Equal(got, set))
		}
	}
	// A run of ones: the marker's low bit.
	ones := binary.BigEndian.AppendUint32(nil, 128)
	ones = binary.BigEndian.AppendUint32(ones, 1)
	ones = binary.BigEndian.AppendUint64(ones, 2<<1|1)
	ones = binary.BigEndian.AppendUint32(ones, 0)
	got := make([]bool, 128)
	if _, err := readEWAH(ones, got); err != nil || slices.Contains(got, false) {
		t.Fatalf("a run of two full words: %v, %v", err, got)
	}
	if _, err := readEWAH(ones, make([]bool, 100)); err == nil {
		t.Fatal("a bit past the shared entries was accepted")
	}
	if _, err := readEWAH(ones[:len(ones)-1], got); err == nil {
		t.Fatal("a bitmap cut short was accepted")
	}
}

// FuzzReadEWAH: any bytes read as a bitmap either fail or give bits that
// encode and read back the same.
func FuzzReadEWAH(f *testing.F) {
	f.Add(encodeEWAH([]bool{true, false, true}))
	f.Add(encodeEWAH(make([]bool, 300)))
	f.Fuzz(func(t *testing.T, data []byte) {
		set := make([]bool, 1000)
		if _, err := readEWAH(data, set); err != nil {
			return
		}
		again := make([]bool, 1000)
		if _, err := readEWAH(encodeEWAH(set), again); err != nil || !slices.Equal(set, again) {
			t.Fatalf("read back: %v", err)
		}
	})
}

// FuzzScanIndex: scanIndex never panics, and the entries it lays out stay
// inside the data.
func FuzzScanIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00link\x00\x00\x00\x14" + strings.Repeat("\x00", 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := scanIndex(data)
		if err != nil {
			return
		}
		for _, e := range ix.entries {
			if e.off < indexHeaderLen || e.off+e.size > len(data)-hashLen {
				t.Fatalf("entry at %d+%d outside %d bytes", e.off, e.size, len(data))
			}
		}
	})
}

// TestSplitIndexRandomStaging stages random edits, additions and deletions
// with td into a split index and with git into a plain one, and compares
// what git lists in each, while git itself writes the split index now and
// then (re-splitting it, refreshing it).
func TestSplitIndexRandomStaging(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git some hundred times")
	}
	split, _ := splitRepo(t)
	control := newRepo(t)
	cp := exec.Command("cp", "-a", split.Root()+"/.", control.Root())
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	runGit(t, control.Root(), "update-index", "--no-split-index")
	runGit(t, control.Root(), "config", "core.splitIndex", "false")
	rng := rand.New(rand.NewPCG(1, 2))
	splitWrites := 0
	for round := range 25 {
		var paths []string
		for range 1 + rng.IntN(6) {
			p := fmt.Sprintf(".todos/issues/td-%04d.md", rng.IntN(260))
			paths = append(paths, p)
			switch rng.IntN(4) {
			case 0:
				for _, r := range []*Repo{split, control} {
					os.Remove(filepath.Join(r.Root(), p))
				}
			default:
				content := fmt.Sprintf("round %d %s\n", round, strings.Repeat("x", rng.IntN(40)))
				writeFile(t, split, p, content)
				writeFile(t, control, p, content)
			}
		}
		slices.Sort(paths)
		paths = slices.Compact(paths)
		if err := split.Stage(paths...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, p := range paths {
			if _, err := os.Stat(filepath.Join(control.Root(), p)); err == nil {
				runGit(t, control.Root(), "add", "--", p)
			} else {
				runGit(t, control.Root(), "rm", "-q", "--cached", "--ignore-unmatch", "--", p)
			}
		}
		if _, ix := readIndexLayout(t, split); ix.link != nil {
			splitWrites++
		}
		// The stat data td wrote is the files': git finds them fresh.
		stale := runGit(t, split.Root(), "diff-files", "--name-only")
		for _, p := range paths {
			if slices.Contains(strings.Split(stale, "\n"), p) {
				t.Fatalf("round %d: git diff-files reports stale stat data for %s", round, p)
			}
		}
		got := runGit(t, split.Root(), "ls-files", "-s")
		want := runGit(t, control.Root(), "ls-files", "-s")
		if got != want {
			t.Fatalf("round %d: git ls-files -s in the split repository differs", round)
		}
		switch rng.IntN(5) {
		case 0:
			runGit(t, split.Root(), "update-index", "--split-index")
		case 1:
			runGit(t, split.Root(), "status", "--porcelain")
		}
	}
	runGit(t, split.Root(), "fsck", "--strict", "--no-dangling")
	// Most rounds wrote a split index; the others, past git's 20%, the
	// whole one: both forms were read back by git.
	if splitWrites < 10 || splitWrites == 25 {
		t.Fatalf("%d of 25 rounds left a split index: the test no longer tests both forms", splitWrites)
	}
}

// TestStageRemovalIntoSplitIndex: a change that only removes a file the
// shared index holds leaves .git/index's own entries as they were, and
// still reaches the index.
func TestStageRemovalIntoSplitIndex(t *testing.T) {
	r, _ := splitRepo(t)
	p := ".todos/issues/td-0042.md"
	if err := os.Remove(filepath.Join(r.Root(), p)); err != nil {
		t.Fatal(err)
	}
	if err := r.Stage(p); err != nil {
		t.Fatal(err)
	}
	if out := runGit(t, r.Root(), "ls-files", "--", p); out != "" {
		t.Fatalf("git ls-files still lists %s", out)
	}
	if out := runGit(t, r.Root(), "diff", "--cached", "--name-status", "--", p); out != "D\t"+p+"\n" {
		t.Fatalf("git diff --cached: %q", out)
	}
}
