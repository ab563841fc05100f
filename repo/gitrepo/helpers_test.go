package gitrepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestMain keeps the user's and the system's git configuration out of the
// tests and gives them an identity, once for the whole package, so that
// tests can run in parallel (t.Setenv cannot be used in a parallel test).
func TestMain(m *testing.M) {
	os.Exit(runIsolated(m))
}

func runIsolated(m *testing.M) int {
	home, err := os.MkdirTemp("", "gitrepo-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME":     "Ada Lovelace",
		"GIT_AUTHOR_EMAIL":    "ada@example.com",
		"GIT_COMMITTER_NAME":  "Ada Lovelace",
		"GIT_COMMITTER_EMAIL": "ada@example.com",
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "EMAIL"} {
		os.Unsetenv(k)
	}
	return m.Run()
}

// newRepo creates a repository in a temporary directory.
func newRepo(t testing.TB) *Repo {
	t.Helper()
	r, err := Init(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeFile(t testing.TB, r *Repo, rel, content string) {
	t.Helper()
	full := filepath.Join(r.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// stagedOne makes a repository with the file name staged, and returns it
// with the path and the bytes of its index.
func stagedOne(t testing.TB, name string) (*Repo, string, []byte) {
	t.Helper()
	r := newRepo(t)
	writeFile(t, r, name, name+"\n")
	if err := r.Stage(name); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.GitDir(), "index")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r, path, data
}

// decodeIndex reads the index with go-git's decoder, which also verifies the
// checksum.
func decodeIndex(t testing.TB, r *Repo) *index.Index {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.GitDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		t.Fatalf("go-git cannot decode the index: %v", err)
	}
	return idx
}

// checkIndex verifies that the index holds exactly want (path → content),
// in git's order, at stage 0, with the right object names, and that each
// blob is readable through go-git.
func checkIndex(t testing.TB, r *Repo, want map[string]string) *index.Index {
	t.Helper()
	idx := decodeIndex(t, r)
	var names []string
	for _, e := range idx.Entries {
		names = append(names, e.Name)
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("index entries are not sorted: %q", names)
	}
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(wantNames)
	if strings.Join(names, "\n") != strings.Join(wantNames, "\n") {
		t.Fatalf("index entries\n%q\nwant\n%q", names, wantNames)
	}
	gr := openGoGit(t, r)
	for _, e := range idx.Entries {
		content := want[e.Name]
		h := plumbing.ComputeHash(plumbing.BlobObject, []byte(content))
		if e.Hash != h {
			t.Errorf("%s: hash %s, want %s", e.Name, e.Hash, h)
		}
		if e.Stage != 0 {
			t.Errorf("%s: stage %d, want 0", e.Name, e.Stage)
		}
		// A size of 0 is git's mark for a racily clean entry whose content
		// must be checked.
		if int(e.Size) != len(content) && e.Size != 0 {
			t.Errorf("%s: size %d, want %d", e.Name, e.Size, len(content))
		}
		blob, err := gr.BlobObject(e.Hash)
		if err != nil {
			t.Errorf("%s: blob %s not readable: %v", e.Name, e.Hash, err)
			continue
		}
		rd, _ := blob.Reader()
		var b bytes.Buffer
		b.ReadFrom(rd)
		rd.Close()
		if b.String() != content {
			t.Errorf("%s: blob content %q, want %q", e.Name, b.String(), content)
		}
	}
	return idx
}

func openGoGit(t testing.TB, r *Repo) *git.Repository {
	t.Helper()
	gr, err := git.PlainOpenWithOptions(r.Root(), &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		t.Fatal(err)
	}
	return gr
}

// checkGoGitStatus verifies with go-git's Worktree.Status that each path has
// the given staging code and is unmodified in the work tree, and that no
// other path differs.
func checkGoGitStatus(t testing.TB, r *Repo, want map[string]git.StatusCode) {
	t.Helper()
	wt, err := openGoGit(t, r).Worktree()
	if err != nil {
		t.Fatal(err)
	}
	st, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	for path, fs := range st {
		code, ok := want[path]
		if !ok {
			if fs.Staging != git.Unmodified || fs.Worktree != git.Unmodified {
				t.Errorf("go-git status of %s: staging %c worktree %c, want clean", path, fs.Staging, fs.Worktree)
			}
			continue
		}
		if fs.Staging != code || fs.Worktree != git.Unmodified {
			t.Errorf("go-git status of %s: staging %c worktree %c, want staging %c and a clean work tree", path, fs.Staging, fs.Worktree, code)
		}
	}
	for path, code := range want {
		if _, ok := st[path]; !ok && code != git.Unmodified {
			t.Errorf("go-git status lacks %s, want staging %c", path, code)
		}
	}
}

// commitGoGit commits the index with go-git.
func commitGoGit(t testing.TB, r *Repo, msg string) plumbing.Hash {
	t.Helper()
	wt, err := openGoGit(t, r).Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Ada Lovelace", Email: "ada@example.com", When: time.Now()}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// gitBinary returns the git program, skipping the test when it is absent.
func gitBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	return p
}

// hasGit reports whether the git program is installed.
func hasGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// runGit runs git in the work tree and returns its standard output.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitBinary(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// checkGit verifies, when git is installed, that git diff-files finds the
// stat data of the just staged paths fresh, that git status --porcelain
// prints want, and that git fsck is content.
func checkGit(t testing.TB, r *Repo, want string, staged ...string) {
	t.Helper()
	if !hasGit() {
		return
	}
	// diff-files compares stat data without refreshing the index: a file
	// just staged must look unchanged. Other entries may be listed: those
	// modified in the second the index was last written are smudged (size
	// 0) so that git checks their content, which diff-files does not do.
	out := runGit(t, r.Root(), "diff-files", "--name-only")
	for _, p := range staged {
		for _, line := range strings.Split(out, "\n") {
			if line == p {
				t.Errorf("git diff-files reports stale stat data for %s", p)
			}
		}
	}
	if got := runGit(t, r.Root(), "status", "--porcelain", "--untracked-files=all"); got != want {
		t.Errorf("git status --porcelain:\n%s\nwant:\n%s", got, want)
	}
	runGit(t, r.Root(), "fsck", "--strict", "--no-dangling")
}
