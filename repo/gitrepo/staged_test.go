package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// nameStatus renders changes as git diff --cached --name-status does, with
// type changes shown as modifications.
func nameStatus(changes []StagedChange) string {
	var b strings.Builder
	for _, c := range changes {
		code := "M"
		switch {
		case c.Unmerged:
			code = "U"
		case c.Added:
			code = "A"
		case c.Deleted:
			code = "D"
		}
		b.WriteString(code + "\t" + c.Path + "\n")
	}
	return b.String()
}

func staged(t *testing.T, r *Repo) []StagedChange {
	t.Helper()
	changes, err := r.StagedChanges()
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// checkStaged verifies the changes against want and, when git is
// installed, against git diff --cached.
func checkStaged(t *testing.T, r *Repo, want string) []StagedChange {
	t.Helper()
	changes := staged(t, r)
	if got := nameStatus(changes); got != want {
		t.Errorf("staged changes:\n%s\nwant:\n%s", got, want)
	}
	if hasGit() {
		out := runGit(t, r.Root(), "diff", "--cached", "--name-status", "--no-renames")
		out = strings.ReplaceAll(out, "T\t", "M\t")
		// git lists an unmerged path once per line of its own; keep one.
		var lines []string
		for _, l := range strings.SplitAfter(out, "\n") {
			if l != "" && (len(lines) == 0 || lines[len(lines)-1] != l) {
				lines = append(lines, l)
			}
		}
		if got := strings.Join(lines, ""); got != want {
			t.Errorf("git diff --cached disagrees with the test's expectation:\n%s\nwant:\n%s", got, want)
		}
	}
	return changes
}

func TestStagedChangesUnbornHead(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	checkStaged(t, r, "")
	writeFile(t, r, "b.go", "package b\n")
	writeFile(t, r, "a/x.go", "package a\n")
	if err := r.Stage("b.go", "a/x.go"); err != nil {
		t.Fatal(err)
	}
	changes := checkStaged(t, r, "A\ta/x.go\nA\tb.go\n")
	want := plumbing.ComputeHash(plumbing.BlobObject, []byte("package b\n")).String()
	if c := changes[1]; c.Hash != want || c.Mode != modeFile || c.OldHash != "" || c.OldMode != 0 {
		t.Errorf("added b.go: %+v, want hash %s mode %o", c, want, modeFile)
	}
}

func TestStagedChangesAddModifyDeleteMode(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	for _, p := range []string{"keep.go", "mod.go", "del.go", "exec.sh", "dir/a.go", "dir/sub/b.go", "gone/x.go", "gone/deep/y.go"} {
		writeFile(t, r, p, p+"\n")
	}
	if err := r.Stage("keep.go", "mod.go", "del.go", "exec.sh", "dir/a.go", "dir/sub/b.go", "gone/x.go", "gone/deep/y.go"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	checkStaged(t, r, "")

	writeFile(t, r, "mod.go", "changed\n")
	writeFile(t, r, "new.go", "new\n")
	writeFile(t, r, "dir/sub/c.go", "c\n")
	for _, p := range []string{"del.go", "gone/x.go", "gone/deep/y.go"} {
		if err := os.Remove(filepath.Join(r.Root(), p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(r.Root(), "exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Stage("mod.go", "new.go", "dir/sub/c.go", "del.go", "gone/x.go", "gone/deep/y.go", "exec.sh"); err != nil {
		t.Fatal(err)
	}
	changes := checkStaged(t, r, "D\tdel.go\nA\tdir/sub/c.go\nM\texec.sh\nD\tgone/deep/y.go\nD\tgone/x.go\nM\tmod.go\nA\tnew.go\n")
	for _, c := range changes {
		switch c.Path {
		case "exec.sh":
			if c.Hash != c.OldHash || c.Mode != modeExec || c.OldMode != modeFile {
				t.Errorf("mode change: %+v", c)
			}
		case "del.go":
			if c.Hash != "" || c.OldHash == "" || c.OldMode != modeFile {
				t.Errorf("deletion: %+v", c)
			}
		case "mod.go":
			if c.Hash == c.OldHash || c.Hash != BlobHash([]byte("changed\n")) {
				t.Errorf("modification: %+v", c)
			}
		}
	}
}

func TestStagedChangesFileBecomesDirectory(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "file\n")
	writeFile(t, r, "b/x", "in dir\n")
	if err := r.Stage("a", "b/x"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	for _, p := range []string{"a", "b/x", "b"} {
		if err := os.Remove(filepath.Join(r.Root(), p)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, r, "a/inner", "now a dir\n")
	writeFile(t, r, "b", "now a file\n")
	if err := r.Stage("a/inner", "b"); err != nil {
		t.Fatal(err)
	}
	checkStaged(t, r, "D\ta\nA\ta/inner\nA\tb\nD\tb/x\n")
}

func TestStagedChangesWithGitsCachedTree(t *testing.T) {
	t.Parallel()
	gitBinary(t)
	r := newRepo(t)
	for _, p := range []string{"top.go", "lib/a.go", "lib/b.go", "app/main.go", "app/sub/x.go", ".todos/issues/td-a.md"} {
		writeFile(t, r, p, p+"\n")
	}
	runGit(t, r.Root(), "add", ".")
	runGit(t, r.Root(), "commit", "-q", "-m", "first")
	// git commit leaves a fully valid cached tree: every directory is
	// skipped.
	checkStaged(t, r, "")
	checkTreeReads(t, r, 0)
	writeFile(t, r, "app/sub/x.go", "changed\n")
	writeFile(t, r, "app/sub/y.go", "new\n")
	runGit(t, r.Root(), "add", "app")
	checkStaged(t, r, "M\tapp/sub/x.go\nA\tapp/sub/y.go\n")
	// The root, app and app/sub are read; lib and .todos are not.
	checkTreeReads(t, r, 3)
	// td's own staging keeps the extension, invalidating only its path.
	writeFile(t, r, ".todos/issues/td-a.md", "edited\n")
	if err := r.Stage(".todos/issues/td-a.md"); err != nil {
		t.Fatal(err)
	}
	checkStaged(t, r, "M\t.todos/issues/td-a.md\nM\tapp/sub/x.go\nA\tapp/sub/y.go\n")
	runGit(t, r.Root(), "rm", "-q", "lib/a.go")
	checkStaged(t, r, "M\t.todos/issues/td-a.md\nM\tapp/sub/x.go\nA\tapp/sub/y.go\nD\tlib/a.go\n")
}

func TestStagedChangesIndexVersion4AndIntentToAdd(t *testing.T) {
	t.Parallel()
	gitBinary(t)
	r := newRepo(t)
	writeFile(t, r, "a/one.go", "1\n")
	writeFile(t, r, "a/two.go", "2\n")
	runGit(t, r.Root(), "add", ".")
	runGit(t, r.Root(), "commit", "-q", "-m", "first")
	writeFile(t, r, "a/two.go", "two\n")
	writeFile(t, r, "later.go", "not yet\n")
	runGit(t, r.Root(), "add", "a/two.go")
	runGit(t, r.Root(), "add", "-N", "later.go")
	checkStaged(t, r, "M\ta/two.go\n")
	runGit(t, r.Root(), "update-index", "--index-version", "4")
	checkStaged(t, r, "M\ta/two.go\n")
}

func TestStagedChangesUnmerged(t *testing.T) {
	t.Parallel()
	gitBinary(t)
	r := newRepo(t)
	writeFile(t, r, "f.txt", "base\n")
	writeFile(t, r, "other.txt", "o\n")
	runGit(t, r.Root(), "add", ".")
	runGit(t, r.Root(), "commit", "-q", "-m", "base")
	runGit(t, r.Root(), "checkout", "-q", "-b", "side")
	writeFile(t, r, "f.txt", "side\n")
	runGit(t, r.Root(), "commit", "-q", "-am", "side")
	runGit(t, r.Root(), "checkout", "-q", "main")
	writeFile(t, r, "f.txt", "main\n")
	runGit(t, r.Root(), "commit", "-q", "-am", "main")
	cmd := []string{"merge", "-q", "side"}
	if out, err := runGitErr(r.Root(), cmd...); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
	changes := checkStaged(t, r, "U\tf.txt\n")
	if c := changes[0]; c.Hash != "" || c.OldHash == "" {
		t.Errorf("unmerged: %+v", c)
	}
}

func TestStagedChangesInAnotherIndex(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a.go", "a\n")
	if err := r.Stage("a.go"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	// A copy of the index, as git commit -a prepares for its hooks.
	data, err := os.ReadFile(filepath.Join(r.GitDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a.go", "changed\n")
	if err := r.Stage("a.go"); err != nil {
		t.Fatal(err)
	}
	alt := filepath.Join(r.GitDir(), "index.alt")
	if err := os.WriteFile(alt, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := nameStatus(staged(t, r)); got != "M\ta.go\n" {
		t.Errorf("the repository's index: %q", got)
	}
	for _, name := range []string{alt, ".git/index.alt"} {
		changes, err := r.StagedChangesIn(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 0 {
			t.Errorf("StagedChangesIn(%s) = %v, want nothing", name, changes)
		}
	}
	// A missing index is an empty one: everything in HEAD is deleted.
	changes, err := r.StagedChangesIn(filepath.Join(r.GitDir(), "no-such-index"))
	if err != nil {
		t.Fatal(err)
	}
	if got := nameStatus(changes); got != "D\ta.go\n" {
		t.Errorf("missing index: %q", got)
	}
}

func TestStagedChangesRefusesADamagedIndex(t *testing.T) {
	t.Parallel()
	r, p, data := stagedOne(t, "a.go")
	data[20] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.StagedChanges(); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged index: %v", err)
	}
	if err := os.WriteFile(p, []byte("not an index at all, but long enough to be read"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.StagedChanges(); err == nil {
		t.Error("garbage index accepted")
	}
}

func TestStageBlobsReportsWhatWasStaged(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a.md", "alpha\n")
	writeFile(t, r, "b.md", "beta\n")
	if err := r.Stage("b.md"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(r.Root(), "b.md")); err != nil {
		t.Fatal(err)
	}
	blobs, err := r.StageBlobs("a.md", "b.md", "a.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []StagedBlob{
		{Path: "a.md", Hash: BlobHash([]byte("alpha\n")), Mode: modeFile},
		{Path: "b.md", Removed: true},
	}
	if len(blobs) != len(want) {
		t.Fatalf("got %+v, want %+v", blobs, want)
	}
	for i := range want {
		if blobs[i] != want[i] {
			t.Errorf("blob %d: got %+v, want %+v", i, blobs[i], want[i])
		}
	}
	checkIndex(t, r, map[string]string{"a.md": "alpha\n"})
	content, err := r.ReadBlob(blobs[0].Hash)
	if err != nil || string(content) != "alpha\n" {
		t.Errorf("BlobAt: %q %v", content, err)
	}
	if blobs, err := r.StageBlobs(); err != nil || blobs != nil {
		t.Errorf("no paths: %v %v", blobs, err)
	}
	if _, err := r.ReadBlob("abc"); err == nil {
		t.Error("BlobAt accepted a short name")
	}
}

func TestHeadBlobs(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	got, err := r.HeadBlobs([]string{"a.md"})
	if err != nil || len(got) != 0 {
		t.Fatalf("unborn HEAD: %v %v", got, err)
	}
	commit := func(msg string, files ...string) { // path, content, ...
		t.Helper()
		var paths []string
		for i := 0; i < len(files); i += 2 {
			writeFile(t, r, files[i], files[i+1])
			paths = append(paths, files[i])
		}
		if err := r.Stage(paths...); err != nil {
			t.Fatal(err)
		}
		commitGoGit(t, r, msg)
	}
	commit("first", "a.md", "a\n", "d/b.md", "b\n", "d/e/c.md", "c\n")
	got, err = r.HeadBlobs([]string{"a.md", "d/b.md", "d/e/c.md", "d/missing.md", "nodir/x.md", "d", "a.md/x"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.md": BlobHash([]byte("a\n")), "d/b.md": BlobHash([]byte("b\n")), "d/e/c.md": BlobHash([]byte("c\n"))}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %s, want %s", k, got[k], v)
		}
	}
	// Asked alone, a path's trees are streamed rather than listed: the
	// same answers, next to names that sort around it (a directory sorts
	// as "name/").
	commit("second", "d/x.md", "x\n", "d/x/y.md", "y\n", "d/x0", "x0\n")
	all := []string{"a.md", "d/b.md", "d/e/c.md", "d/missing.md", "nodir/x.md", "d", "a.md/x", "d/x.md", "d/x/y.md", "d/x0", "d/x", "d/e", "", "..", "d//b.md"}
	together, err := r.HeadBlobs(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		alone, err := r.HeadBlobs([]string{p})
		if err != nil {
			t.Fatalf("%q alone: %v", p, err)
		}
		if h, ok := alone[p]; h != together[p] || len(alone) > 1 || ok != (together[p] != "") {
			t.Errorf("%q alone: %v; with the others: %q", p, alone, together[p])
		}
	}
	if together["d/x/y.md"] != BlobHash([]byte("y\n")) || together["d/x.md"] != BlobHash([]byte("x\n")) || together["d//b.md"] != "" {
		t.Errorf("got %v", together)
	}
}

// checkTreeReads verifies how many trees of HEAD a comparison decodes.
func checkTreeReads(t *testing.T, r *Repo, want int) {
	t.Helper()
	d, err := r.stagedDiff("")
	if err != nil {
		t.Fatal(err)
	}
	if d.reads != want {
		t.Errorf("the comparison read %d trees, want %d", d.reads, want)
	}
}

// runGitErr runs git in dir and returns its combined output and error,
// for commands expected to fail.
func runGitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The index sorts "a.b" < "a/x" < "a0" by bytes; a tree sorts the
// directory a as "a/": the walk must pair them up all the same.
func TestStagedChangesTreeOrder(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	paths := []string{"a-b", "a.b", "a/x", "a/z/deep", "a0", "b", "c"}
	for _, p := range paths {
		writeFile(t, r, p, p+"\n")
	}
	if err := r.Stage(paths...); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	checkStaged(t, r, "")
	for _, p := range []string{"a.b", "a/z/deep", "c"} {
		if err := os.Remove(filepath.Join(r.Root(), p)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, r, "a/x", "changed\n")
	writeFile(t, r, "a/y", "new\n")
	writeFile(t, r, "a-b", "changed\n")
	writeFile(t, r, "c/d", "c is a directory now\n")
	writeFile(t, r, "a.c", "new\n")
	if err := r.Stage("a.b", "a/z/deep", "a/x", "a/y", "a-b", "c/d", "a.c"); err != nil {
		t.Fatal(err)
	}
	checkStaged(t, r, "M\ta-b\nD\ta.b\nA\ta.c\nM\ta/x\nA\ta/y\nD\ta/z/deep\nD\tc\nA\tc/d\n")
}
