package gitrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// repoWithIndex builds a repository of n issue files and an index holding
// all of them, encoded in one go with go-git's encoder rather than through n
// Worktree.Add calls. The index is given the files' real stat data.
func repoWithIndex(b *testing.B, n int) *Repo {
	b.Helper()
	r := newRepo(b)
	dir := filepath.Join(r.Root(), ".todos", "issues")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("- [ ] a todo item with some words in it\n", 20)
	idx := &index.Index{Version: 2}
	for i := range n {
		rel := fmt.Sprintf(".todos/issues/td-%06d.md", i)
		content := fmt.Sprintf("---\nid: td-%06d\ntitle: Issue %d\n---\n%s", i, i, body)
		full := filepath.Join(r.Root(), filepath.FromSlash(rel))
		if err := os.WriteFile(full, []byte(content), 0o666); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(full)
		if err != nil {
			b.Fatal(err)
		}
		sd := statFromFileInfo(fi)
		idx.Entries = append(idx.Entries, &index.Entry{
			Hash:       plumbing.ComputeHash(plumbing.BlobObject, []byte(content)),
			Name:       rel,
			CreatedAt:  unixTime(sd.ctimeSec, sd.ctimeNsec),
			ModifiedAt: unixTime(sd.mtimeSec, sd.mtimeNsec),
			Dev:        sd.dev,
			Inode:      sd.ino,
			Mode:       filemode.Regular,
			UID:        sd.uid,
			GID:        sd.gid,
			Size:       sd.size,
		})
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(r.GitDir(), "index")
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		b.Fatal(err)
	}
	return r
}

func benchmarkStageOneFile(b *testing.B, patch indexPatcher) {
	r := repoWithIndex(b, 10_000)
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
		if err := r.stage([]string{rel}, patch); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got := len(decodeIndex(b, r).Entries); got != 10_000 {
		b.Fatalf("index holds %d entries, want 10000", got)
	}
}

// BenchmarkStageOneFile10k stages one changed file into a 10,000-entry index
// through the byte-level patcher.
func BenchmarkStageOneFile10k(b *testing.B) { benchmarkStageOneFile(b, patchIndex) }

// BenchmarkStageOneFile10kCodec does the same through go-git's index decoder
// and encoder, for comparison.
func BenchmarkStageOneFile10kCodec(b *testing.B) { benchmarkStageOneFile(b, codecIndex) }

// BenchmarkOpenAndAuthor is what every writing td command pays before it
// writes anything.
func BenchmarkOpenAndAuthor(b *testing.B) {
	r := repoWithIndex(b, 1000)
	b.Setenv("GIT_AUTHOR_NAME", "")
	b.Setenv("GIT_AUTHOR_EMAIL", "")
	if err := r.SetConfigValue("user", "", "name", "Ada Lovelace"); err != nil {
		b.Fatal(err)
	}
	if err := r.SetConfigValue("user", "", "email", "ada@example.com"); err != nil {
		b.Fatal(err)
	}
	sub := filepath.Join(r.Root(), ".todos", "issues")
	b.ReportAllocs()
	for b.Loop() {
		repo, err := Open(sub)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := repo.Author(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackedCommit20k reads one commit from a pack of 20,000 objects
// on a freshly opened Repo, as a harness hook reads its claim's commit:
// the cost should be the object's, not the pack index's (decoding the
// index whole took 7 ms of the 10 ms a hook may take).
func BenchmarkPackedCommit20k(b *testing.B) {
	r := newRepo(b)
	gitBinary(b)
	var in bytes.Buffer
	const n = 20_000
	for i := range n {
		content := fmt.Sprintf("issue %d\n", i)
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(content), content)
	}
	fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter A <a@example.com> 1700000000 +0000\ndata 4\nbig\n", n+1)
	for i := range n {
		fmt.Fprintf(&in, "M 100644 :%d f/%05d\n", i+1, i)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = r.Root(), &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v: %s", err, out)
	}
	head := strings.TrimSpace(runGit(b, r.Root(), "rev-parse", "refs/heads/main"))
	b.ReportAllocs()
	for b.Loop() {
		repo, err := Open(r.Root())
		if err != nil {
			b.Fatal(err)
		}
		if c := repo.Commits([]string{head})[0]; c == nil || c.Message != "big\n" {
			b.Fatalf("the commit read: %+v", c)
		}
	}
}
