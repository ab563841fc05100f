package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

func TestStageFreshRepositoryCreatesVersion2Index(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	if _, err := os.Stat(filepath.Join(r.GitDir(), "index")); !os.IsNotExist(err) {
		t.Fatalf("a fresh repository has an index: %v", err)
	}
	writeFile(t, r, "README.md", "# demo\n")
	writeFile(t, r, ".todos/issues/td-aaaaaa.md", "---\nid: td-aaaaaa\n---\n")
	if err := r.Stage("README.md", filepath.Join(".todos", "issues", "td-aaaaaa.md")); err != nil {
		t.Fatal(err)
	}
	idx := checkIndex(t, r, map[string]string{
		"README.md":                  "# demo\n",
		".todos/issues/td-aaaaaa.md": "---\nid: td-aaaaaa\n---\n",
	})
	if idx.Version != 2 {
		t.Errorf("index version %d, want 2", idx.Version)
	}
	checkGoGitStatus(t, r, map[string]git.StatusCode{"README.md": git.Added, ".todos/issues/td-aaaaaa.md": git.Added})
	checkGit(t, r, "A  .todos/issues/td-aaaaaa.md\nA  README.md\n", "README.md", ".todos/issues/td-aaaaaa.md")
}

func TestStageUpdatesAnExistingEntry(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a.md", "one\n")
	writeFile(t, r, "b.md", "two\n")
	if err := r.Stage("a.md", "b.md"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	writeFile(t, r, "a.md", "one, changed\n")
	if err := r.Stage("a.md"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"a.md": "one, changed\n", "b.md": "two\n"})
	checkGoGitStatus(t, r, map[string]git.StatusCode{"a.md": git.Modified})
	checkGit(t, r, "M  a.md\n", "a.md")

	// Staging again without a change keeps the index equivalent.
	if err := r.Stage("a.md"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"a.md": "one, changed\n", "b.md": "two\n"})
	checkGit(t, r, "M  a.md\n", "a.md")
}

func TestStageInsertsInTheMiddleInGitOrder(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	// "a.b" < "a/b" < "a0" in byte order: the index is sorted by path bytes,
	// not as trees are.
	for _, p := range []string{"a.b", "a0", "z", "m/x"} {
		writeFile(t, r, p, p+"\n")
	}
	if err := r.Stage("a.b", "a0", "z", "m/x"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	writeFile(t, r, "a/b", "a/b\n")
	writeFile(t, r, "m/a", "m/a\n")
	if err := r.Stage("m/a"); err != nil {
		t.Fatal(err)
	}
	if err := r.Stage("a/b"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"a.b": "a.b\n", "a/b": "a/b\n", "a0": "a0\n", "m/a": "m/a\n", "m/x": "m/x\n", "z": "z\n"})
	checkGoGitStatus(t, r, map[string]git.StatusCode{"a/b": git.Added, "m/a": git.Added})
	checkGit(t, r, "A  a/b\nA  m/a\n", "a/b")
}

func TestStageRemovesADeletedFile(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "keep.md", "keep\n")
	writeFile(t, r, "dir/gone.md", "gone\n")
	if err := r.Stage("keep.md", "dir/gone.md"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	if err := os.Remove(filepath.Join(r.Root(), "dir", "gone.md")); err != nil {
		t.Fatal(err)
	}
	if err := r.Stage("dir/gone.md"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"keep.md": "keep\n"})
	checkGoGitStatus(t, r, map[string]git.StatusCode{"dir/gone.md": git.Deleted})
	checkGit(t, r, "D  dir/gone.md\n")

	// Removing a path the index does not hold leaves the index alone.
	before, _ := os.ReadFile(filepath.Join(r.GitDir(), "index"))
	if err := r.Stage("never/was.md"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(r.GitDir(), "index"))
	if !bytes.Equal(before, after) {
		t.Error("staging an unknown deleted path rewrote the index")
	}
}

func TestStageReplacesAFileByADirectoryAndBack(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "x", "file\n")
	writeFile(t, r, "y/z", "nested\n")
	if err := r.Stage("x", "y/z"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	os.Remove(filepath.Join(r.Root(), "x"))
	writeFile(t, r, "x/inner", "inner\n")
	os.RemoveAll(filepath.Join(r.Root(), "y"))
	writeFile(t, r, "y", "now a file\n")
	if err := r.Stage("x/inner", "y"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"x/inner": "inner\n", "y": "now a file\n"})
	checkGit(t, r, "D  x\nA  x/inner\nA  y\nD  y/z\n", "x/inner", "y")
}

func TestStageRefusesPathsOutsideTheWorkTree(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "d/f", "x")
	for _, p := range []string{"", "../x", "/etc/passwd", ".git/config", "sub/.GIT/x", "d"} {
		if err := r.Stage(p); err == nil {
			t.Errorf("Stage(%q) succeeded", p)
		}
	}
	// An absolute path inside the work tree is fine.
	if err := r.Stage(filepath.Join(r.Root(), "d", "f")); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"d/f": "x"})
}

func TestStageRecordsExecutableAndSymlinkModes(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "run.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.Root(), "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.sh", filepath.Join(r.Root(), "link")); err != nil {
		t.Skip("no symbolic links here")
	}
	if err := r.Stage("run.sh", "link"); err != nil {
		t.Fatal(err)
	}
	idx := checkIndex(t, r, map[string]string{"run.sh": "#!/bin/sh\n", "link": "run.sh"})
	modes := map[string]filemode.FileMode{}
	for _, e := range idx.Entries {
		modes[e.Name] = e.Mode
	}
	if modes["run.sh"] != filemode.Executable || modes["link"] != filemode.Symlink {
		t.Errorf("modes %v, want run.sh executable and link a symlink", modes)
	}
	checkGit(t, r, "A  link\nA  run.sh\n", "link", "run.sh")
}

func TestStageKeepsTheRecordedModeWhenFileModeIsFalse(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(r.Root(), "run.sh"), 0o755)
	if err := r.Stage("run.sh"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetConfigValue("core", "", "fileMode", "false"); err != nil {
		t.Fatal(err)
	}
	r, err := Open(r.Root())
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(r.Root(), "run.sh"), 0o644)
	writeFile(t, r, "run.sh", "#!/bin/sh\necho\n")
	if err := r.Stage("run.sh"); err != nil {
		t.Fatal(err)
	}
	idx := checkIndex(t, r, map[string]string{"run.sh": "#!/bin/sh\necho\n"})
	if idx.Entries[0].Mode != filemode.Executable {
		t.Errorf("mode %v, want the recorded executable mode", idx.Entries[0].Mode)
	}
}

// TestStageInvalidatesTheCacheTree stages into an index whose TREE extension
// git filled, then lets git commit from it: a stale cached tree would make
// the commit miss the change.
func TestStageInvalidatesTheCacheTree(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	files := map[string]string{
		"top.md":               "top\n",
		".todos/config.yaml":   "prefix: td\n",
		".todos/issues/a.md":   "a\n",
		".todos/issues/b.md":   "b\n",
		".todos/history/a.log": "log\n",
		"src/main.go":          "package main\n",
	}
	var paths []string
	for p, c := range files {
		writeFile(t, r, p, c)
		paths = append(paths, p)
	}
	if err := r.Stage(paths...); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	gitBinary(t)
	// git write-tree stores the cache tree in the index.
	runGit(t, r.Root(), "write-tree")
	tree := treeExtension(t, r)
	if tree == nil {
		t.Fatal("git write-tree left no TREE extension")
	}
	if n := tree.count; n != len(files) {
		t.Fatalf("root cache tree covers %d entries, want %d", n, len(files))
	}

	writeFile(t, r, ".todos/issues/b.md", "b, changed\n")
	writeFile(t, r, ".todos/issues/c.md", "c\n")
	files[".todos/issues/b.md"] = "b, changed\n"
	files[".todos/issues/c.md"] = "c\n"
	if err := r.Stage(".todos/issues/b.md", ".todos/issues/c.md"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, files)
	tree = treeExtension(t, r)
	if tree == nil {
		t.Fatal("the TREE extension was dropped")
	}
	if tree.count != -1 || tree.children[tree.child(".todos")].count != -1 {
		t.Error("the trees holding the staged files are still valid")
	}
	if src := tree.children[tree.child("src")]; src.count != 1 || src.hash == nil {
		t.Error("an unrelated cached tree was invalidated")
	}
	checkGit(t, r, "M  .todos/issues/b.md\nA  .todos/issues/c.md\n", ".todos/issues/b.md", ".todos/issues/c.md")

	runGit(t, r.Root(), "commit", "-q", "-m", "second")
	got := runGit(t, r.Root(), "ls-tree", "-r", "HEAD")
	for p, c := range files {
		want := plumbing.ComputeHash(plumbing.BlobObject, []byte(c)).String() + "\t" + p
		if !strings.Contains(got, want) {
			t.Errorf("HEAD lacks %s with its staged content:\n%s", p, got)
		}
	}
	runGit(t, r.Root(), "fsck", "--strict", "--no-dangling")
	if out := runGit(t, r.Root(), "status", "--porcelain"); out != "" {
		t.Errorf("work tree not clean after the commit:\n%s", out)
	}
}

// treeExtension parses the TREE extension of the index, or returns nil.
func treeExtension(t *testing.T, r *Repo) *treeNode {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.GitDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	exts := extensions(t, data)
	ext, ok := exts["TREE"]
	if !ok {
		return nil
	}
	n, rest, ok := parseTree(ext, 0)
	if !ok || len(rest) != 0 {
		t.Fatal("the TREE extension does not parse")
	}
	return n
}

// extensions returns the extensions of a version 2 or 3 index by signature.
func extensions(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	be := binary.BigEndian
	off := indexHeaderLen
	for range be.Uint32(data[8:]) {
		flags := be.Uint16(data[off+entryFlagsOff:])
		fixed := entryFixedLen
		if flags&flagExtended != 0 {
			fixed += 2
		}
		n := int(flags & flagNameMask)
		if n == flagNameMask {
			n = bytes.IndexByte(data[off+fixed:], 0)
		}
		off += entryLen(fixed, n)
	}
	exts := map[string][]byte{}
	for off < len(data)-hashLen {
		size := int(be.Uint32(data[off+4:]))
		exts[string(data[off:off+4])] = data[off+8 : off+8+size]
		off += 8 + size
	}
	return exts
}

func TestInvalidateTreeWithoutGit(t *testing.T) {
	t.Parallel()
	h := bytes.Repeat([]byte{1}, hashLen)
	node := func(name string, count int, children ...*treeNode) *treeNode {
		return &treeNode{name: name, count: count, hash: h, children: children}
	}
	root := node("", 5, node("a", 2, node("b", 1)), node("c", 2), node("d", 1))
	ext := root.appendTo(nil)
	got := invalidateTree(ext, []string{"a/b/file", "c"})
	n, rest, ok := parseTree(got, 0)
	if !ok || len(rest) != 0 {
		t.Fatal("the rewritten extension does not parse")
	}
	if n.count != -1 || n.hash != nil {
		t.Error("root still valid")
	}
	a := n.children[n.child("a")]
	if a.count != -1 || a.children[a.child("b")].count != -1 {
		t.Error("a or a/b still valid")
	}
	if n.child("c") >= 0 {
		t.Error("subtree c survives although c is a file now")
	}
	if d := n.children[n.child("d")]; d.count != 1 || !bytes.Equal(d.hash, h) {
		t.Error("d was touched")
	}
	if invalidateTree([]byte("garbage"), []string{"x"}) != nil {
		t.Error("a malformed extension is kept")
	}
}

// TestStageDropsPositionalExtensionsAndKeepsREUC checks the extension policy
// on a hand-made index.
func TestStageDropsPositionalExtensionsAndKeepsREUC(t *testing.T) {
	t.Parallel()
	r, path, data := stagedOne(t, "a")
	body := data[:len(data)-hashLen]
	reuc := []byte("a\x00100644 0 0\n" + strings.Repeat("\x02", hashLen))
	for _, ext := range []struct {
		sig  string
		data []byte
	}{{"REUC", reuc}, {"UNTR", []byte("whatever")}, {"EOIE", make([]byte, 24)}, {"ZZZZ", []byte("x")}} {
		body = append(body, ext.sig...)
		body = binary.BigEndian.AppendUint32(body, uint32(len(ext.data)))
		body = append(body, ext.data...)
	}
	writeIndexBytes(t, path, body)

	writeFile(t, r, "b", "b\n")
	if err := r.Stage("b"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"a": "a\n", "b": "b\n"})
	data, _ = os.ReadFile(path)
	exts := extensions(t, data)
	if !bytes.Equal(exts["REUC"], reuc) {
		t.Error("REUC was not kept")
	}
	for _, sig := range []string{"UNTR", "EOIE", "ZZZZ"} {
		if _, ok := exts[sig]; ok {
			t.Errorf("%s was kept", sig)
		}
	}
	checkGit(t, r, "A  a\nA  b\n", "b")
}

// writeIndexBytes writes body followed by its SHA-1 as the index.
func writeIndexBytes(t *testing.T, path string, body []byte) {
	t.Helper()
	if err := os.WriteFile(path, appendChecksum(slices.Clone(body)), 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestStageRefusesAMandatoryExtension(t *testing.T) {
	t.Parallel()
	for sig, want := range map[string]string{
		"sdir": "extension",   // a sparse index: not td's to update
		"link": "split index", // a split index whose shared file is gone
	} {
		r, path, data := stagedOne(t, "a")
		body := append(data[:len(data)-hashLen:len(data)-hashLen], sig...)
		body = binary.BigEndian.AppendUint32(body, hashLen)
		body = append(body, make([]byte, hashLen)...)
		writeIndexBytes(t, path, body)
		before, _ := os.ReadFile(path)

		writeFile(t, r, "b", "b\n")
		err := r.Stage("b")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Stage with a %q extension: %v, want an error naming the %s", sig, err, want)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(before, after) {
			t.Errorf("%s: the index changed", sig)
		}
		if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
			t.Errorf("%s: index.lock left behind", sig)
		}
	}
}

func TestStageRefusesACorruptIndex(t *testing.T) {
	t.Parallel()
	r, path, data := stagedOne(t, "a")
	data[len(data)-1] ^= 0xff
	os.WriteFile(path, data, 0o666)
	writeFile(t, r, "b", "b\n")
	if err := r.Stage("b"); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("Stage on a corrupt index: %v, want a checksum error", err)
	}
}

// TestStageFallsBackForIndexVersion4 lets git convert the index to version
// 4, which the byte-level patcher does not handle.
func TestStageFallsBackForIndexVersion4(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	gitBinary(t)
	for _, p := range []string{"a.md", "dir/b.md", "dir/c.md"} {
		writeFile(t, r, p, p)
	}
	if err := r.Stage("a.md", "dir/b.md", "dir/c.md"); err != nil {
		t.Fatal(err)
	}
	commitGoGit(t, r, "first")
	runGit(t, r.Root(), "update-index", "--index-version", "4")
	if v := decodeIndex(t, r).Version; v != 4 {
		t.Fatalf("index version %d after git update-index, want 4", v)
	}
	writeFile(t, r, "dir/b.md", "changed")
	writeFile(t, r, "dir/bb.md", "new")
	os.Remove(filepath.Join(r.Root(), "a.md"))
	if err := r.Stage("dir/b.md", "dir/bb.md", "a.md"); err != nil {
		t.Fatal(err)
	}
	idx := checkIndex(t, r, map[string]string{"dir/b.md": "changed", "dir/bb.md": "new", "dir/c.md": "dir/c.md"})
	if idx.Version != 4 {
		t.Errorf("index version %d, want 4 kept", idx.Version)
	}
	checkGoGitStatus(t, r, map[string]git.StatusCode{"a.md": git.Deleted, "dir/b.md": git.Modified, "dir/bb.md": git.Added})
	checkGit(t, r, "D  a.md\nM  dir/b.md\nA  dir/bb.md\n", "dir/b.md", "dir/bb.md")
}

// writeGoGitIndex writes idx with go-git's encoder.
func writeGoGitIndex(t testing.TB, r *Repo, idx *index.Index) {
	t.Helper()
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.GitDir(), "index"), buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestStageClearsSkipWorktreeAndIntentToAdd(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "a\n")
	writeFile(t, r, "sparse", "sparse\n")
	writeFile(t, r, "planned", "planned\n")
	writeFile(t, r, "z", "z\n")
	if err := r.Stage("a", "sparse", "z"); err != nil {
		t.Fatal(err)
	}
	idx := decodeIndex(t, r)
	idx.Version = 3
	for _, e := range idx.Entries {
		if e.Name == "sparse" {
			e.SkipWorktree = true
		}
	}
	empty := plumbing.ComputeHash(plumbing.BlobObject, nil)
	idx.Entries = append(idx.Entries, &index.Entry{Name: "planned", Hash: empty, Mode: filemode.Regular, IntentToAdd: true})
	writeGoGitIndex(t, r, idx)
	writeFile(t, r, "z", "z, changed\n")
	if err := r.Stage("z"); err != nil {
		t.Fatal(err)
	}
	idx = decodeIndex(t, r)
	var flagged []string
	for _, e := range idx.Entries {
		if e.SkipWorktree || e.IntentToAdd {
			flagged = append(flagged, e.Name)
		}
	}
	if strings.Join(flagged, ",") != "planned,sparse" {
		t.Errorf("flagged entries %q, want planned and sparse untouched", flagged)
	}

	writeFile(t, r, "sparse", "sparse, changed\n")
	if err := r.Stage("sparse", "planned"); err != nil {
		t.Fatal(err)
	}
	idx = checkIndex(t, r, map[string]string{"a": "a\n", "planned": "planned\n", "sparse": "sparse, changed\n", "z": "z, changed\n"})
	for _, e := range idx.Entries {
		if e.SkipWorktree || e.IntentToAdd {
			t.Errorf("%s keeps its skip-worktree or intent-to-add bit", e.Name)
		}
	}
	checkGit(t, r, "A  a\nA  planned\nA  sparse\nA  z\n", "planned", "sparse")
}

func TestStageResolvesAConflict(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "a\n")
	writeFile(t, r, "c", "c\n")
	if err := r.Stage("a", "c"); err != nil {
		t.Fatal(err)
	}
	idx := decodeIndex(t, r)
	var kept []*index.Entry
	for _, e := range idx.Entries {
		if e.Name != "c" {
			kept = append(kept, e)
		}
	}
	for stage, content := range []string{"", "base\n", "ours\n", "theirs\n"} {
		if stage == 0 {
			continue
		}
		h := plumbing.ComputeHash(plumbing.BlobObject, []byte(content))
		kept = append(kept, &index.Entry{Name: "c", Hash: h, Mode: filemode.Regular, Stage: index.Stage(stage)})
	}
	idx.Entries = kept
	writeGoGitIndex(t, r, idx)
	writeFile(t, r, "c", "resolved\n")
	if err := r.Stage("c"); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, r, map[string]string{"a": "a\n", "c": "resolved\n"})
}

func TestStageSmudgesRacilyCleanEntries(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "a\n")
	writeFile(t, r, "b", "b\n")
	if err := r.Stage("a", "b"); err != nil {
		t.Fatal(err)
	}
	// Pretend the index was written in the same second as a was modified.
	path := filepath.Join(r.GitDir(), "index")
	fi, _ := os.Stat(filepath.Join(r.Root(), "a"))
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	writeFile(t, r, "b", "b, changed\n")
	if err := r.Stage("b"); err != nil {
		t.Fatal(err)
	}
	for _, e := range decodeIndex(t, r).Entries {
		if e.Name == "a" && e.Size != 0 {
			t.Errorf("racily clean entry a kept size %d, want 0", e.Size)
		}
	}
	checkGit(t, r, "A  a\nA  b\n", "b")
}

func TestStageWaitsForIndexLockThenFails(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.locks.wait = 300 * time.Millisecond
	writeFile(t, r, "a", "a\n")
	lock := filepath.Join(r.GitDir(), "index.lock")
	if err := os.WriteFile(lock, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := r.Stage("a")
	waited := time.Since(start)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), lock) {
		t.Fatalf("Stage with index.lock present: %v, want ErrLocked naming %s", err, lock)
	}
	if waited < r.locks.wait {
		t.Errorf("gave up after %v, want at least %v", waited, r.locks.wait)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Error("Stage removed a lock it did not own")
	}

	// A lock released while Stage waits lets it through.
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.Remove(lock)
	}()
	if err := r.Stage("a"); err != nil {
		t.Fatalf("Stage after the lock was released: %v", err)
	}
	checkIndex(t, r, map[string]string{"a": "a\n"})
}

// TestStageConcurrently stages from several goroutines, some sharing a Repo
// and some with their own, as separate processes would: index.lock must
// serialise them and no entry may be lost.
func TestStageConcurrently(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	const workers, perWorker = 8, 12
	want := map[string]string{}
	for w := range workers {
		for i := range perWorker {
			p := fmt.Sprintf(".todos/issues/w%d-%02d.md", w, i)
			want[p] = p + "\n"
			writeFile(t, r, p, p+"\n")
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := r
			if w%2 == 1 {
				var err error
				if repo, err = Open(filepath.Join(r.Root(), ".todos")); err != nil {
					errs <- err
					return
				}
			}
			for i := range perWorker {
				// Waiting out git's lock for longer than td does is the
				// machine's load, not a lost write: try again. What must
				// hold is that every path ends up staged.
				err := repo.Stage(fmt.Sprintf(".todos/issues/w%d-%02d.md", w, i))
				for try := 0; errors.Is(err, ErrLocked) && try < 5; try++ {
					err = repo.Stage(fmt.Sprintf(".todos/issues/w%d-%02d.md", w, i))
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkIndex(t, r, want)
	if _, err := os.Stat(filepath.Join(r.GitDir(), "index.lock")); !os.IsNotExist(err) {
		t.Error("index.lock left behind")
	}
}

// TestStageKeepsLongPaths covers index entries whose name of 4095 bytes or
// more no longer fits the entry flags and ends at a NUL instead. Such paths
// exceed PATH_MAX once joined to the work tree, so the entry is made with
// go-git's encoder and only patched around.
func TestStageKeepsLongPaths(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "a\n")
	if err := r.Stage("a"); err != nil {
		t.Fatal(err)
	}
	idx := decodeIndex(t, r)
	long := strings.Repeat("d/", 2100) + "file.md"
	h := plumbing.ComputeHash(plumbing.BlobObject, []byte("long\n"))
	idx.Entries = append(idx.Entries, &index.Entry{Name: long, Hash: h, Mode: filemode.Regular, Size: 5})
	writeGoGitIndex(t, r, idx)

	for _, p := range []string{"b", "e"} {
		writeFile(t, r, p, p+"\n")
		if err := r.Stage(p); err != nil {
			t.Fatal(err)
		}
	}
	idx = decodeIndex(t, r)
	var names []string
	for _, e := range idx.Entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "a,b,"+long+",e" {
		t.Errorf("entries %q", names)
	}
}
