package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// commitReq is a request for paths with a fixed identity and date.
func commitReq(msg string, paths ...string) CommitRequest {
	who := Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Unix(1795000500, 0).In(time.FixedZone("", 3600))}
	return CommitRequest{Paths: paths, Message: msg, Author: who, Committer: who}
}

// mustCommit commits and fails the test on an error.
func mustCommit(t *testing.T, r *Repo, req CommitRequest) CommitResult {
	t.Helper()
	res, err := r.Commit(req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Staged {
		t.Error("Staged is false after a successful commit")
	}
	return res
}

// fileAt reads a file of HEAD, "" when it is absent.
func fileAt(t *testing.T, r *Repo, rev, path string) string {
	t.Helper()
	b, err := r.FileAt(rev, path)
	if errors.Is(err, os.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommitLeavesTheUsersStagedAndUnstagedChanges(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	base := h.commit("start", map[string]string{
		"app.go":                     "package main\n",
		"docs/guide.md":              "guide\n",
		".todos/issues/td-aaaaaa.md": "one\n",
		".todos/issues/td-bbbbbb.md": "two\n",
		".todos/config.yaml":         "git:\n  mode: auto\n",
	})
	// The user stages a new file and a change, and leaves another unstaged.
	h.write(map[string]string{"user.txt": "mine\n", "docs/guide.md": "guide, staged\n"})
	h.git(nil, "", "add", "user.txt", "docs/guide.md")
	h.write(map[string]string{"app.go": "package main // unstaged\n"})

	writeFile(t, r, ".todos/issues/td-aaaaaa.md", "one, closed\n")
	writeFile(t, r, ".todos/history/td-aaaaaa.jsonl", "{}\n")
	msg := "td: close td-aaaaaa\n\nTd-Session: ses_qmt3y9ft\nTd-Action: closed\nTd-Issue: td-aaaaaa\n"
	res := mustCommit(t, r, commitReq(msg, ".todos/issues/td-aaaaaa.md", ".todos/history/td-aaaaaa.jsonl"))
	if res.Parent != base || res.Ref != "refs/heads/main" || res.Rebuilt {
		t.Errorf("result %+v, want parent %s on refs/heads/main", res, base)
	}
	if head := h.git(nil, "", "rev-parse", "HEAD"); head != res.Hash {
		t.Errorf("HEAD is %s, want the new commit %s", head, res.Hash)
	}
	if got := h.git(nil, "", "show", "--format=", "--name-status", "HEAD"); got != "A\t.todos/history/td-aaaaaa.jsonl\nM\t.todos/issues/td-aaaaaa.md" {
		t.Errorf("the commit changed:\n%s", got)
	}
	if got := runGit(t, r.Root(), "status", "--porcelain", "--untracked-files=no"); got != " M app.go\nM  docs/guide.md\nA  user.txt\n" {
		t.Errorf("git status after the commit:\n%s", got)
	}
	if got := h.git(nil, "", "diff", "--cached", "--name-only"); got != "docs/guide.md\nuser.txt" {
		t.Errorf("staged after the commit:\n%s", got)
	}
	c, err := r.CommitAt(res.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if c.Message != msg || len(c.Trailers) != 3 || c.Trailer("Td-Action")[0] != "closed" {
		t.Errorf("message %q, trailers %v", c.Message, c.Trailers)
	}
	if c.Author.When.Unix() != 1795000500 || c.Author.Name != "Ada Lovelace" || c.Committer.Email != "ada@example.com" {
		t.Errorf("author %+v committer %+v", c.Author, c.Committer)
	}
	if got := h.git(nil, "", "log", "-1", "--format=%ad", "--date=iso"); got != "2026-11-18 12:15:00 +0100" {
		t.Errorf("author date %s", got)
	}
	h.git(nil, "", "fsck", "--strict", "--no-dangling")
	// The reflogs say what git commit would.
	reflog := h.git(nil, "", "reflog", "-1", "--format=%gs", "refs/heads/main")
	if reflog != "commit: td: close td-aaaaaa" {
		t.Errorf("branch reflog %q", reflog)
	}
	if got := h.git(nil, "", "reflog", "-1", "--format=%gs", "HEAD"); got != reflog {
		t.Errorf("HEAD reflog %q", got)
	}
}

func TestCommitTreeMatchesGitsWriteTree(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	// Names around git's tree order: a directory sorts as if its name
	// ended in "/", so "a.b" < "a/" < "a0" in a tree.
	h.commit("start", map[string]string{
		"a.b": "1\n", "a0": "2\n", "a/x": "3\n", "m/n/o/p": "4\n", "m/n/q": "5\n", "z": "6\n", "gone/only": "7\n",
	})
	writeFile(t, r, "a/y", "new\n")
	writeFile(t, r, "a-b/c", "new dir\n")
	writeFile(t, r, "m/n/o/p", "changed\n")
	writeFile(t, r, "new/deep/file", "deep\n")
	if err := os.Remove(filepath.Join(r.Root(), "gone", "only")); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(r.Root(), "z")
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, r, commitReq("td: edit", "a/y", "a-b/c", "m/n/o/p", "new/deep/file", "gone/only", "z"))
	// Nothing else was staged, so git's own tree of the index must be the
	// committed one, byte for byte.
	if tree, want := h.git(nil, "", "rev-parse", "HEAD^{tree}"), h.git(nil, "", "write-tree"); tree != want {
		t.Errorf("committed tree %s, git write-tree %s", tree, want)
	}
	if got := h.git(nil, "", "status", "--porcelain"); got != "" {
		t.Errorf("git status after the commit:\n%s", got)
	}
	if got := h.git(nil, "", "ls-tree", "HEAD", "z"); !strings.HasPrefix(got, "100755 ") {
		t.Errorf("z is %q, want mode 100755", got)
	}
	h.git(nil, "", "fsck", "--strict", "--no-dangling")
}

func TestCommitReplacesAFileByADirectoryAndBack(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	h.commit("start", map[string]string{"x": "file\n", "y/z": "dir\n", "keep": "k\n"})
	for _, p := range []string{"x", "y/z"} {
		if err := os.Remove(filepath.Join(r.Root(), filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(r.Root(), "y")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "x/inside", "now a dir\n")
	writeFile(t, r, "y", "now a file\n")
	mustCommit(t, r, commitReq("swap", "x/inside", "y", "y/z"))
	if got := h.git(nil, "", "ls-tree", "-r", "--name-only", "HEAD"); got != "keep\nx/inside\ny" {
		t.Errorf("tree after the swap:\n%s", got)
	}
	if tree, want := h.git(nil, "", "rev-parse", "HEAD^{tree}"), h.git(nil, "", "write-tree"); tree != want {
		t.Errorf("committed tree %s, git write-tree %s", tree, want)
	}
	h.git(nil, "", "fsck", "--strict", "--no-dangling")
}

func TestCommitRemovalKeepsAnEntryOfTheOtherKind(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	h.commit("start", map[string]string{"d/f": "1\n", "e": "2\n"})
	// "d" is a directory and "e/f" cannot exist: committing "d" or "e/f"
	// as removals must not drop the directory d or the file e.
	res := mustCommit(t, r, commitReq("nothing", "e/f"))
	if res.Hash != "" {
		t.Errorf("a removal of a path HEAD lacks made commit %s", res.Hash)
	}
	if got := h.git(nil, "", "ls-tree", "-r", "--name-only", "HEAD"); got != "d/f\ne" {
		t.Errorf("tree:\n%s", got)
	}
}

func TestCommitOnAnUnbornBranchIsARootCommitOfTheGivenPathsOnly(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "user.txt", "staged by the user\n")
	if err := r.Stage("user.txt"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, ".todos/issues/td-aaaaaa.md", "one\n")
	res := mustCommit(t, r, commitReq("td: create td-aaaaaa", ".todos/issues/td-aaaaaa.md"))
	if res.Hash == "" || res.Parent != "" {
		t.Fatalf("result %+v, want a root commit", res)
	}
	c, err := r.CommitAt(res.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 0 {
		t.Errorf("parents %v", c.Parents)
	}
	if got := fileAt(t, r, "HEAD", ".todos/issues/td-aaaaaa.md"); got != "one\n" {
		t.Errorf("issue file at HEAD: %q", got)
	}
	if got := fileAt(t, r, "HEAD", "user.txt"); got != "<absent>" {
		t.Errorf("the user's staged file is in td's commit: %q", got)
	}
	checkIndex(t, r, map[string]string{"user.txt": "staged by the user\n", ".todos/issues/td-aaaaaa.md": "one\n"})
	if hasGit() {
		if got := runGit(t, r.Root(), "status", "--porcelain"); got != "A  user.txt\n" {
			t.Errorf("git status:\n%s", got)
		}
		if got := runGit(t, r.Root(), "reflog", "-1", "--format=%gs"); got != "commit (initial): td: create td-aaaaaa\n" {
			t.Errorf("reflog %q", got)
		}
		runGit(t, r.Root(), "fsck", "--strict", "--no-dangling")
	}
}

func TestCommitOfUnchangedContentMakesNoCommit(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	first := mustCommit(t, r, commitReq("first", "a"))
	res := mustCommit(t, r, commitReq("again", "a"))
	if res.Hash != "" || res.Parent != "" {
		t.Errorf("result %+v, want no commit", res)
	}
	if head, _ := r.Resolve("HEAD"); head != first.Hash {
		t.Errorf("HEAD moved to %s", head)
	}
	if res, err := r.Commit(CommitRequest{}); err != nil || res.Staged || res.Hash != "" {
		t.Errorf("no paths: %+v %v", res, err)
	}
}

func TestCommitOnADetachedHeadMovesHead(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	first := mustCommit(t, r, commitReq("first", "a"))
	if err := os.WriteFile(filepath.Join(r.GitDir(), "HEAD"), []byte(first.Hash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "2\n")
	res := mustCommit(t, r, commitReq("second", "a"))
	if res.Ref != "HEAD" || res.Parent != first.Hash {
		t.Errorf("result %+v", res)
	}
	head, _ := os.ReadFile(filepath.Join(r.GitDir(), "HEAD"))
	if string(head) != res.Hash+"\n" {
		t.Errorf("HEAD holds %q, want %s", head, res.Hash)
	}
	if main, _ := r.Resolve("refs/heads/main"); main != first.Hash {
		t.Errorf("main moved to %s", main)
	}
}

func TestCommitOnAPackedBranch(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	first := mustCommit(t, r, commitReq("first", "a"))
	loose := filepath.Join(r.GitDir(), "refs", "heads", "main")
	packed := "# pack-refs with: peeled fully-peeled sorted \n" + first.Hash + " refs/heads/main\n"
	if err := os.WriteFile(filepath.Join(r.GitDir(), "packed-refs"), []byte(packed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(loose); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "2\n")
	res := mustCommit(t, r, commitReq("second", "a"))
	if res.Parent != first.Hash {
		t.Errorf("parent %s, want the packed tip %s", res.Parent, first.Hash)
	}
	if main, _ := r.Resolve("main"); main != res.Hash {
		t.Errorf("main is %s, want %s", main, res.Hash)
	}
}

func TestCommitRebuildsOnABranchThatMovedMeanwhile(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	writeFile(t, r, "b", "1\n")
	first := mustCommit(t, r, commitReq("first", "a", "b"))
	// Another writer's commit, made on the side: it changes b.
	writeFile(t, r, "b", "theirs\n")
	theirs := mustCommit(t, r, commitReq("theirs", "b"))
	if err := os.WriteFile(filepath.Join(r.GitDir(), "refs", "heads", "main"), []byte(first.Hash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "ours\n")
	moved := false
	res, err := r.commit(commitReq("ours", "a"), commitHooks{afterIndexWrite: func() {
		// The branch moves after td built its commit on first.
		moved = true
		if err := os.WriteFile(filepath.Join(r.GitDir(), "refs", "heads", "main"), []byte(theirs.Hash+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}})
	if err != nil || !moved {
		t.Fatal(err)
	}
	if !res.Rebuilt || res.Parent != theirs.Hash {
		t.Errorf("result %+v, want a commit rebuilt on %s", res, theirs.Hash)
	}
	if main, _ := r.Resolve("main"); main != res.Hash {
		t.Errorf("main is %s, want %s", main, res.Hash)
	}
	if a, b := fileAt(t, r, "HEAD", "a"), fileAt(t, r, "HEAD", "b"); a != "ours\n" || b != "theirs\n" {
		t.Errorf("HEAD has a=%q b=%q: a change was lost", a, b)
	}
}

func TestCommitRefusesDuringAMergeButStages(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	first := mustCommit(t, r, commitReq("first", "a"))
	if err := os.WriteFile(filepath.Join(r.GitDir(), "MERGE_HEAD"), []byte(first.Hash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "2\n")
	res, err := r.Commit(commitReq("second", "a"))
	if !errors.Is(err, ErrOperationInProgress) || !strings.Contains(err.Error(), "a merge is in progress (.git/MERGE_HEAD exists)") {
		t.Fatalf("error %v, want a merge in progress", err)
	}
	if !res.Staged || res.Hash != "" {
		t.Errorf("result %+v, want staged and not committed", res)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].Path != "a" || res.Blobs[0].Hash != BlobHash([]byte("2\n")) {
		t.Errorf("blobs %+v, want the staged content of a", res.Blobs)
	}
	if head, _ := r.Resolve("HEAD"); head != first.Hash {
		t.Errorf("HEAD moved to %s", head)
	}
	checkIndex(t, r, map[string]string{"a": "2\n"})
}

func TestCommitFailsWhileTheBranchIsLockedButStages(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.locks.wait = 200 * time.Millisecond
	writeFile(t, r, "a", "1\n")
	first := mustCommit(t, r, commitReq("first", "a"))
	lock := filepath.Join(r.GitDir(), "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "2\n")
	res, err := r.Commit(commitReq("second", "a"))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("error %v, want ErrLocked", err)
	}
	if !res.Staged || res.Hash != "" {
		t.Errorf("result %+v, want staged and not committed", res)
	}
	if head, _ := r.Resolve("HEAD"); head != first.Hash {
		t.Errorf("HEAD moved to %s", head)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the other writer's lock file is gone: %v", err)
	}
	checkIndex(t, r, map[string]string{"a": "2\n"})
}

func TestCommitReadsHeadsTreeFromAPack(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	h.commit("start", map[string]string{"dir/a": "1\n", "dir/b": "2\n", "top": "3\n"})
	h.git(nil, "", "gc", "-q")
	writeFile(t, r, "dir/b", "changed\n")
	mustCommit(t, r, commitReq("td: edit", "dir/b"))
	if tree, want := h.git(nil, "", "rev-parse", "HEAD^{tree}"), h.git(nil, "", "write-tree"); tree != want {
		t.Errorf("committed tree %s, git write-tree %s", tree, want)
	}
	h.git(nil, "", "fsck", "--strict", "--no-dangling")
}

func TestFormatSignature(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  Signature
		want string
	}{
		{Signature{"Ada", "ada@example.com", time.Unix(100, 0).UTC()}, "Ada <ada@example.com> 100 +0000"},
		{Signature{"Ada <x>\n", " a@b ", time.Unix(100, 0).In(time.FixedZone("", -(5*3600 + 30*60)))}, "Ada x <a@b> 100 -0530"},
	} {
		if got := formatSignature(tc.sig); got != tc.want {
			t.Errorf("formatSignature(%+v) = %q, want %q", tc.sig, got, tc.want)
		}
	}
}

func TestNewRawEntryEncodesGitsModes(t *testing.T) {
	t.Parallel()
	h := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	e := newRawEntry(modeTree, "dir", h)
	if string(e.whole[:10]) != "40000 dir\x00" || !e.dir || string(e.name) != "dir" || entryHash(e) != h {
		t.Errorf("tree entry %q", e.whole)
	}
	if e := newRawEntry(modeExec, "run", h); string(e.whole[:11]) != "100755 run\x00" || e.dir {
		t.Errorf("file entry %q", e.whole)
	}
}

// BenchmarkCommitOneFile10k commits one changed issue file on top of a HEAD
// holding 10,000: blob, index patch, the issues directory's tree rebuilt,
// the commit, the branch moved. BenchmarkStageOneFile10k is the same
// without the commit.
func BenchmarkCommitOneFile10k(b *testing.B) {
	r := repoWithIndex(b, 10_000)
	var all []string
	for i := range 10_000 {
		all = append(all, fmt.Sprintf(".todos/issues/td-%06d.md", i))
	}
	who := Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Unix(1795000500, 0).UTC()}
	if _, err := r.Commit(CommitRequest{Paths: all, Message: "all\n", Author: who, Committer: who}); err != nil {
		b.Fatal(err)
	}
	const rel = ".todos/issues/td-004321.md"
	full := filepath.Join(r.Root(), rel)
	orig, err := os.ReadFile(full)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := os.WriteFile(full, fmt.Appendf(append([]byte{}, orig...), "edit %d\n", i), 0o666); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := r.Commit(CommitRequest{Paths: []string{rel}, Message: "td: edit\n", Author: who, Committer: who})
		if err != nil || res.Hash == "" {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// TestCommitObjectIsWhatGitWrites has git write the commit td wrote, from
// the same tree, parent, people, dates and message, with git commit-tree:
// the two must be the same object, byte for byte.
func TestCommitObjectIsWhatGitWrites(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	h.commit("start", map[string]string{"a": "1\n"})
	writeFile(t, r, "a", "2\n")
	author := Signature{Name: "Grace Hopper", Email: "grace@example.com", When: time.Unix(1795000000, 0).In(time.FixedZone("", -(3*3600 + 30*60)))}
	committer := Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Unix(1795003600, 0).In(time.FixedZone("", 5*3600+45*60))}
	for _, msg := range []string{
		"td: edit td-aaaaaa\n\nTd-Session: ses_qmt3y9ft\nTd-Action: edited\nTd-Issue: td-aaaaaa\n",
		"no final newline",
	} {
		res := mustCommit(t, r, CommitRequest{Paths: []string{"a"}, Message: msg, Author: author, Committer: committer})
		c, err := r.CommitAt(res.Hash)
		if err != nil {
			t.Fatal(err)
		}
		tree := h.git(nil, "", "rev-parse", res.Hash+"^{tree}")
		env := []string{
			"GIT_AUTHOR_NAME=" + author.Name, "GIT_AUTHOR_EMAIL=" + author.Email, "GIT_AUTHOR_DATE=1795000000 -0330",
			"GIT_COMMITTER_NAME=" + committer.Name, "GIT_COMMITTER_EMAIL=" + committer.Email, "GIT_COMMITTER_DATE=1795003600 +0545",
		}
		gitMsg := msg
		if !strings.HasSuffix(gitMsg, "\n") {
			gitMsg += "\n"
		}
		if got := h.git(env, gitMsg, "commit-tree", tree, "-p", c.Parents[0], "-F", "-"); got != res.Hash {
			t.Errorf("git commit-tree writes %s for the commit td wrote as %s:\n%s", got, res.Hash, h.git(nil, "", "cat-file", "commit", res.Hash))
		}
		writeFile(t, r, "a", "3 "+msg+"\n")
	}
}
