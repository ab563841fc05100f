package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// historyRepo is a repository whose commits are made by the git program, as
// a user makes them, at controlled dates.
type historyRepo struct {
	t    testing.TB
	r    *Repo
	tick int64 // seconds since the first commit
}

func newHistoryRepo(t testing.TB) *historyRepo {
	t.Helper()
	gitBinary(t)
	return &historyRepo{t: t, r: newRepo(t)}
}

// historyEpoch is the date of the first commit of a historyRepo.
const historyEpoch = 1795000000

// git runs git in the work tree with extra environment variables and returns
// its trimmed standard output.
func (h *historyRepo) git(env []string, stdin string, args ...string) string {
	h.t.Helper()
	cmd := exec.Command(gitBinary(h.t), args...)
	cmd.Dir = h.r.Root()
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// write writes files (path → content) in the work tree; an empty content
// deletes the file.
func (h *historyRepo) write(files map[string]string) {
	h.t.Helper()
	for p, content := range files {
		if content == "" {
			if err := os.Remove(filepath.Join(h.r.Root(), filepath.FromSlash(p))); err != nil {
				h.t.Fatal(err)
			}
			continue
		}
		writeFile(h.t, h.r, p, content)
	}
}

// commit writes files, commits everything with the message verbatim, one
// second after the previous commit, and returns the commit's hash.
func (h *historyRepo) commit(msg string, files map[string]string) string {
	h.t.Helper()
	h.write(files)
	h.git(nil, "", "add", "-A")
	return h.commitIndex(msg)
}

// commitIndex commits the index as it is.
func (h *historyRepo) commitIndex(msg string) string {
	h.t.Helper()
	h.tick++
	date := fmt.Sprintf("@%d +0000", historyEpoch+h.tick)
	h.git([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, msg,
		"commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-")
	return h.head()
}

// head returns the commit HEAD names, read from the files git just wrote
// (git commit and git merge write the branch as a loose reference), which
// saves a git rev-parse per commit; git answers when the branch is packed.
func (h *historyRepo) head() string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.r.GitDir(), "HEAD"))
	if err != nil {
		h.t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(s, "ref: ")
	if !ok {
		return s
	}
	if b, err := os.ReadFile(filepath.Join(h.r.GitDir(), filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	return h.git(nil, "", "rev-parse", "HEAD")
}

// merge merges branch into the current branch without fast-forward; the
// branches must not conflict.
func (h *historyRepo) merge(branch string) string {
	h.t.Helper()
	h.tick++
	date := fmt.Sprintf("@%d +0000", historyEpoch+h.tick)
	h.git([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "",
		"merge", "-q", "--no-ff", "--no-edit", branch)
	return h.head()
}

func TestResolve(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r

	for _, rev := range []string{"HEAD", "@", "main"} {
		if _, err := r.Resolve(rev); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Resolve(%q) on an unborn branch: %v, want ErrUnknownRevision", rev, err)
		}
	}
	if _, err := r.Resolve("HEAD"); err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Errorf("Resolve(HEAD) on an unborn branch says %v, want it to say the branch has no commits", err)
	}

	c1 := h.commit("first\n", map[string]string{"a.md": "one\n"})
	h.git(nil, "", "branch", "feature/login")
	h.git(nil, "", "tag", "v1")
	c2 := h.commit("second\n", map[string]string{"a.md": "two\n"})
	h.git([]string{"GIT_COMMITTER_DATE=@1795000100 +0000"}, "", "tag", "-a", "-m", "release two", "v2")
	h.git([]string{"GIT_COMMITTER_DATE=@1795000101 +0000"}, "", "tag", "-a", "-m", "tag of a tag", "v2-again", "v2")
	c3 := h.commit("third\n", map[string]string{"b.md": "b\n"})
	// A tag and a branch of the same name: git takes the tag.
	h.git(nil, "", "branch", "both", c1)
	h.git(nil, "", "tag", "both", c2)
	tree := h.git(nil, "", "rev-parse", "HEAD^{tree}")
	blob := h.git(nil, "", "rev-parse", "HEAD:a.md")

	want := map[string]string{
		"HEAD":                     c3,
		"@":                        c3,
		"main":                     c3,
		"heads/main":               c3,
		"refs/heads/main":          c3,
		"feature/login":            c1,
		"refs/heads/feature/login": c1,
		"v1":                       c1,
		"tags/v1":                  c1,
		"v2":                       c2,
		"refs/tags/v2":             c2,
		"v2-again":                 c2,
		"both":                     c2,
		c2:                         c2,
		c2[:7]:                     c2,
		c2[:4]:                     c2,
		strings.ToUpper(c2[:12]):   c2,
		"HEAD~1":                   c2,
		"HEAD~2":                   c1,
		"HEAD^":                    c2,
		"HEAD^^":                   c1,
		"HEAD~0":                   c3,
		"main^0":                   c3,
		"v2~1":                     c1,
		"@~1^1":                    c1,
	}
	revs := slices.Sorted(maps.Keys(want))
	refused := []string{
		"nope", "refs/heads/nope", "HEAD~3", "HEAD^2", "HEAD~x", "HEAD:a.md",
		"../../etc/passwd", "refs/../HEAD", "main.lock", "", "~1", "abc",
		strings.Repeat("0", 40), tree, blob, tree[:10], "deadbeef",
	}
	check := func(label string) {
		t.Helper()
		// One git cat-file resolves every revision, a line each: the
		// commit's name, or "<rev> missing" for a revision naming no
		// commit.
		var in strings.Builder
		for _, rev := range slices.Concat(revs, refused) {
			in.WriteString(rev + "^{commit}\n")
		}
		gitSays := strings.Split(h.git(nil, in.String(), "cat-file", "--batch-check=%(objectname)"), "\n")
		if len(gitSays) != len(revs)+len(refused) {
			t.Fatalf("%s: git cat-file answered %d lines for %d revisions", label, len(gitSays), len(revs)+len(refused))
		}
		for i, rev := range revs {
			hash := want[rev]
			got, err := r.Resolve(rev)
			if err != nil || got != hash {
				t.Errorf("%s: Resolve(%q) = %q, %v; want %s", label, rev, got, err, hash)
			}
			if gitSays[i] != hash {
				t.Errorf("%s: git says %s is %s, the test expects %s", label, rev, gitSays[i], hash)
			}
		}
		for i, rev := range refused {
			got, err := r.Resolve(rev)
			if !errors.Is(err, ErrUnknownRevision) {
				t.Errorf("%s: Resolve(%q) = %q, %v; want ErrUnknownRevision", label, rev, got, err)
			}
			if say := gitSays[len(revs)+i]; !strings.HasSuffix(say, " missing") {
				t.Errorf("%s: git resolves %q to %s, td refuses it", label, rev, say)
			}
		}
		// git reads the reflog for @{N}; td names no reflog entries.
		if got, err := r.Resolve("main@{1}"); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("%s: Resolve(main@{1}) = %q, %v; want ErrUnknownRevision", label, got, err)
		}
	}
	check("loose refs")
	h.git(nil, "", "pack-refs", "--all")
	check("packed refs")
	h.git(nil, "", "repack", "-adq")
	check("packed objects")
}

func TestResolveErrorNamesTheRevision(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	h.commit("first\n", map[string]string{"a.md": "a\n"})
	_, err := h.r.Resolve("nope")
	if err == nil || err.Error() != `unknown revision "nope": no such branch, tag, reference or commit` {
		t.Errorf("Resolve(nope): %v", err)
	}
}

func TestCommitAt(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	author := []string{
		"GIT_AUTHOR_NAME=Grace Hopper", "GIT_AUTHOR_EMAIL=grace@example.com",
		"GIT_AUTHOR_DATE=@1795000000 +0130",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com",
		"GIT_COMMITTER_DATE=@1795003600 -0800",
	}
	cases := []struct {
		name     string
		msg      string
		trailers []Trailer
	}{
		{
			name: "trailer block",
			msg:  "Start the callback handler\n\nThe state parameter is checked.\n\nTd-Session: ses_7hq2m4p1\nTd-Action: started\n",
			trailers: []Trailer{
				{"Td-Session", "ses_7hq2m4p1"},
				{"Td-Action", "started"},
			},
		},
		{
			name: "no trailer block",
			msg:  "Fix the parser\n\nIt read one byte too far.\n",
		},
		{
			name: "key-value lines in the body are not trailers",
			msg:  "Refactor\n\nNote: this is prose\nSee: the README\n\nThe last paragraph is prose too.\n",
		},
		{
			name: "the title is never a trailer",
			msg:  "Td-Action: started\n",
		},
		{
			name: "title and trailers only",
			msg:  "Close td-k3x9qa\n\nTd-Session: ses_c81kd0zz\nTd-Action: closed\n",
			trailers: []Trailer{
				{"Td-Session", "ses_c81kd0zz"},
				{"Td-Action", "closed"},
			},
		},
		{
			name: "folded value and blank before the colon",
			msg:  "Title\n\nBody.\n\nTd-Note: a long\n  value on two lines\nReviewed-by : Ada <ada@example.com>\n\n\n",
			trailers: []Trailer{
				{"Td-Note", "a long value on two lines"},
				{"Reviewed-by", "Ada <ada@example.com>"},
			},
		},
		{
			name: "mixed paragraph without a git trailer",
			msg:  "Title\n\nBody.\n\nTd-Action: started\nthis line is prose\n",
		},
		{
			name: "mixed paragraph with Signed-off-by",
			msg:  "Title\n\nBody.\n\nSigned-off-by: Ada <ada@example.com>\nthis line is prose\nTd-Action: closed\n",
			trailers: []Trailer{
				{"Signed-off-by", "Ada <ada@example.com>"},
				{"Td-Action", "closed"},
			},
		},
		{
			name: "cherry-pick line",
			msg:  "Title\n\nBody.\n\n(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)\nTd-Action: started\n",
			trailers: []Trailer{
				{"Td-Action", "started"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.git(author, tc.msg, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-")
			hash := h.head()
			c, err := h.r.CommitAt(hash)
			if err != nil {
				t.Fatal(err)
			}
			if c.Hash != hash {
				t.Errorf("Hash = %s, want %s", c.Hash, hash)
			}
			if c.Message != tc.msg {
				t.Errorf("Message = %q, want %q", c.Message, tc.msg)
			}
			if !slices.Equal(c.Trailers, tc.trailers) {
				t.Errorf("Trailers = %q, want %q", c.Trailers, tc.trailers)
			}
			if gitSays := gitTrailers(h, checkAgainstGit(t, h, c)); !slices.Equal(c.Trailers, gitSays) {
				t.Errorf("Trailers = %q, git interpret-trailers says %q", c.Trailers, gitSays)
			}
			if got := c.Author.String(); got != "Grace Hopper <grace@example.com>" {
				t.Errorf("Author = %s", got)
			}
			if got := c.Committer.String(); got != "Ada Lovelace <ada@example.com>" {
				t.Errorf("Committer = %s", got)
			}
			checkWhen(t, "author", c.Author.When, 1795000000, 90*60)
			checkWhen(t, "committer", c.Committer.When, 1795003600, -8*3600)
			checkAgainstGoGit(t, h.r, c)
		})
	}

	c, err := h.r.CommitAt(h.git(nil, "", "rev-parse", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Trailer("td-action"); !slices.Equal(got, []string{"started"}) {
		t.Errorf(`Trailer("td-action") = %q, want [started]`, got)
	}
	if got := c.Trailer("Td-Session"); got != nil {
		t.Errorf(`Trailer("Td-Session") = %q, want none`, got)
	}
	if len(c.Parents) != 1 {
		t.Errorf("Parents = %q, want one", c.Parents)
	}

	for _, bad := range []string{"HEAD", c.Hash[:7], strings.Repeat("0", 40), h.git(nil, "", "rev-parse", "HEAD^{tree}")} {
		if _, err := h.r.CommitAt(bad); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("CommitAt(%q): %v, want ErrUnknownRevision", bad, err)
		}
	}
}

// gitTrailers asks git which trailers a commit message has.
func gitTrailers(h *historyRepo, msg string) []Trailer {
	h.t.Helper()
	out := h.git(nil, msg+"\n", "interpret-trailers", "--parse")
	var ts []Trailer
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			ts = append(ts, Trailer{k, v})
		}
	}
	return ts
}

func checkWhen(t *testing.T, who string, when time.Time, unix int64, offset int) {
	t.Helper()
	if when.Unix() != unix {
		t.Errorf("%s time %v, want unix %d", who, when, unix)
	}
	if _, off := when.Zone(); off != offset {
		t.Errorf("%s time zone offset %d, want %d", who, off, offset)
	}
}

// checkAgainstGoGit decodes the same commit with go-git's object package.
func checkAgainstGoGit(t *testing.T, r *Repo, c *Commit) {
	t.Helper()
	gc, err := openGoGit(t, r).CommitObject(plumbing.NewHash(c.Hash))
	if err != nil {
		t.Fatal(err)
	}
	if gc.Message != c.Message || gc.Author.Name != c.Author.Name || gc.Author.Email != c.Author.Email ||
		!gc.Author.When.Equal(c.Author.When) || gc.Committer.Name != c.Committer.Name ||
		gc.Committer.Email != c.Committer.Email || !gc.Committer.When.Equal(c.Committer.When) {
		t.Errorf("decoded %+v, go-git decodes %+v", c, gc)
	}
	var parents []string
	for _, p := range gc.ParentHashes {
		parents = append(parents, p.String())
	}
	if !slices.Equal(parents, c.Parents) {
		t.Errorf("parents %q, go-git says %q", c.Parents, parents)
	}
}

// checkAgainstGit compares a decoded commit with what git log says of it,
// and returns the message as git gives it.
func checkAgainstGit(t *testing.T, h *historyRepo, c *Commit) string {
	t.Helper()
	out := h.git(nil, "", "log", "-1", "--date=raw", "--format=%P%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B", c.Hash)
	fields := strings.SplitN(out, "\x00", 8)
	if len(fields) != 8 {
		t.Fatalf("git log gave %q", out)
	}
	raw := func(w time.Time) string {
		_, off := w.Zone()
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		return fmt.Sprintf("%d %c%02d%02d", w.Unix(), sign, off/3600, off%3600/60)
	}
	want := []string{strings.Join(c.Parents, " "), c.Author.Name, c.Author.Email, raw(c.Author.When),
		c.Committer.Name, c.Committer.Email, raw(c.Committer.When)}
	if !slices.Equal(fields[:7], want) {
		t.Errorf("git log says %q, td decodes %q", fields[:7], want)
	}
	if strings.TrimSpace(fields[7]) != strings.TrimSpace(c.Message) {
		t.Errorf("git log gives the message %q, td decodes %q", fields[7], c.Message)
	}
	return fields[7]
}

func TestParseCommitSkipsMultiLineHeaders(t *testing.T) {
	t.Parallel()
	raw := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n" +
		"parent 0123456789abcdef0123456789abcdef01234567\n" +
		"parent 89abcdef0123456789abcdef0123456789abcdef\n" +
		"author Ada <ada@example.com> 1795000000 +0000\n" +
		"committer Grace <grace@example.com> 1795000001 +0200\n" +
		"encoding UTF-8\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n" +
		" \n" +
		" author Mallory <mallory@example.com> 1 +0000\n" +
		" -----END PGP SIGNATURE-----\n" +
		"\n" +
		"Merge\n\nTd-Action: approved\n"
	c, err := parseCommit([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.Author.String() != "Ada <ada@example.com>" || c.Committer.String() != "Grace <grace@example.com>" {
		t.Errorf("author %s, committer %s", c.Author, c.Committer)
	}
	if len(c.Parents) != 2 || c.Parents[1] != "89abcdef0123456789abcdef0123456789abcdef" {
		t.Errorf("parents %q", c.Parents)
	}
	if c.Message != "Merge\n\nTd-Action: approved\n" {
		t.Errorf("message %q", c.Message)
	}
	if got := c.Trailer("Td-Action"); !slices.Equal(got, []string{"approved"}) {
		t.Errorf("trailers %q", c.Trailers)
	}
	if _, err := parseCommit([]byte("author Ada <a@b> 1 +0000\n\nno tree\n")); err == nil {
		t.Error("a commit without a tree line was accepted")
	}
}

func TestFileAt(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	if _, err := r.FileAt("HEAD", "a.md"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("FileAt on an unborn branch: %v, want ErrUnknownRevision", err)
	}
	c1 := h.commit("first\n", map[string]string{
		"a.md":                   "one\n",
		".todos/issues/td-1.md":  "issue one\n",
		".todos/issues/td-2.md":  "issue two\n",
		".todos/history/td-1.md": "{}\n",
	})
	h.commit("second\n", map[string]string{
		"a.md":                  "two\n",
		".todos/issues/td-2.md": "",
	})
	if err := os.Symlink("a.md", filepath.Join(r.Root(), "link")); err != nil {
		t.Fatal(err)
	}
	h.commit("link\n", nil)

	check := func(label string) {
		t.Helper()
		for _, tc := range []struct{ rev, path, want string }{
			{"HEAD", "a.md", "two\n"},
			{"HEAD~2", "a.md", "one\n"},
			{c1, "a.md", "one\n"},
			{"main", ".todos/issues/td-1.md", "issue one\n"},
			{"HEAD", "./.todos//issues/td-1.md", "issue one\n"},
			{c1, ".todos/issues/td-2.md", "issue two\n"},
			{"HEAD", "link", "a.md"},
		} {
			got, err := r.FileAt(tc.rev, tc.path)
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: FileAt(%s, %s) = %q, %v; want %q", label, tc.rev, tc.path, got, err, tc.want)
			}
		}
		for _, tc := range []struct{ rev, path string }{
			{"HEAD", ".todos/issues/td-2.md"},
			{"HEAD", "missing.md"},
			{"HEAD", "a.md/below"},
			{"HEAD", ".todos/missing/td-1.md"},
			{"HEAD~2", "link"},
		} {
			if _, err := r.FileAt(tc.rev, tc.path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: FileAt(%s, %s): %v, want fs.ErrNotExist", label, tc.rev, tc.path, err)
			}
		}
		if _, err := r.FileAt("HEAD", ".todos/issues"); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: FileAt of a directory: %v, want an error saying it is a directory", label, err)
		}
		if _, err := r.FileAt("nope", "a.md"); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("%s: FileAt at an unknown revision: %v, want ErrUnknownRevision", label, err)
		}
		for _, bad := range []string{"", ".", "../a.md", "/a.md"} {
			if _, err := r.FileAt("HEAD", bad); err == nil {
				t.Errorf("%s: FileAt(HEAD, %q) succeeded", label, bad)
			}
		}
	}
	check("loose objects")
	h.git(nil, "", "repack", "-adq")
	check("packed objects")
}

// hashes returns the commit hashes of a PathHistory result, each followed by
// + when added and - when deleted.
func hashes(changes []PathChange) []string {
	var out []string
	for _, c := range changes {
		out = append(out, tagged(c.Commit.Hash, c.Added, c.Deleted))
	}
	return out
}

// tagged is a commit hash with + when the change added the path and -
// when it deleted it.
func tagged(hash string, added, deleted bool) string {
	if added {
		hash += "+"
	}
	if deleted {
		hash += "-"
	}
	return hash
}

func checkHistory(t *testing.T, r *Repo, path string, limit int, want ...string) {
	t.Helper()
	got, err := r.PathHistory(path, limit)
	if err != nil {
		t.Fatalf("PathHistory(%s, %d): %v", path, limit, err)
	}
	if !slices.Equal(hashes(got), want) {
		t.Errorf("PathHistory(%s, %d) =\n%q\nwant\n%q", path, limit, hashes(got), want)
	}
}

func TestPathHistoryUnborn(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	got, err := r.PathHistory(".todos/issues/td-1.md", 0)
	if got != nil || err != nil {
		t.Errorf("PathHistory on an unborn branch = %v, %v; want nil, nil", got, err)
	}
}

func TestPathHistoryLinear(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/td-1.md"
	c1 := h.commit("create\n", map[string]string{f: "v1\n", "README.md": "r\n"})
	h.commit("other issue\n", map[string]string{".todos/issues/td-2.md": "x\n"})
	c3 := h.commit("start\n", map[string]string{f: "v2\n"})
	h.commit("readme\n", map[string]string{"README.md": "r2\n"})
	c5 := h.commit("close\n", map[string]string{f: "v3\n", ".todos/issues/td-2.md": "y\n"})
	h.commit("empty\n", nil)

	for _, label := range []string{"loose objects", "packed objects"} {
		checkHistory(t, h.r, f, 0, c5, c3, c1+"+")
		checkHistory(t, h.r, f, 2, c5, c3)
		checkHistory(t, h.r, f, 1, c5)
		checkHistory(t, h.r, f, -1, c5, c3, c1+"+")
		checkHistory(t, h.r, "missing.md", 0)
		if gitSays := h.git(nil, "", "log", "--format=%H", "--", f); gitSays != strings.Join([]string{c5, c3, c1}, "\n") {
			t.Errorf("%s: git log says\n%s", label, gitSays)
		}
		h.git(nil, "", "repack", "-adq")
	}
	got, err := h.r.PathHistory(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Commit.Message != "close\n" || got[2].Commit.Message != "create\n" {
		t.Errorf("commits %q and %q", got[0].Commit.Message, got[2].Commit.Message)
	}
}

func TestPathHistoryAddModifyDeleteReadd(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/td-1.md"
	base := h.commit("base\n", map[string]string{"README.md": "r\n"})
	c1 := h.commit("add\n", map[string]string{f: "v1\n"})
	c2 := h.commit("modify\n", map[string]string{f: "v2\n"})
	c3 := h.commit("delete\n", map[string]string{f: ""})
	h.commit("unrelated\n", map[string]string{"README.md": "r2\n"})
	c5 := h.commit("re-add\n", map[string]string{f: "v1\n"})
	checkHistory(t, h.r, f, 0, c5+"+", c3+"-", c2, c1+"+")
	if gitSays := h.git(nil, "", "log", "--format=%H", "--", f); gitSays != strings.Join([]string{c5, c3, c2, c1}, "\n") {
		t.Errorf("git log says\n%s", gitSays)
	}
	// A root commit without the path is not listed; one with it is added.
	checkHistory(t, h.r, "README.md", 0, h.git(nil, "", "rev-parse", "HEAD~1"), base+"+")
}

func TestPathHistoryNestedAndDirectory(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/sub/td-1.md"
	c1 := h.commit("add\n", map[string]string{f: "v1\n", ".todos/issues/td-2.md": "a\n"})
	c2 := h.commit("sibling\n", map[string]string{".todos/issues/td-2.md": "b\n"})
	c3 := h.commit("cousin\n", map[string]string{".todos/issues/sub/td-3.md": "c\n"})
	c4 := h.commit("modify\n", map[string]string{f: "v2\n"})
	h.commit("elsewhere\n", map[string]string{"src/main.go": "package main\n"})
	checkHistory(t, h.r, f, 0, c4, c1+"+")
	checkHistory(t, h.r, ".todos/issues/sub", 0, c4, c3, c1+"+")
	checkHistory(t, h.r, ".todos/issues", 0, c4, c3, c2, c1+"+")
	checkHistory(t, h.r, ".todos/issues/td-2.md/x", 0)
}

func TestPathHistoryMerge(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/td-1.md"
	lines := func(top, bottom string) string {
		return top + "\n" + strings.Repeat("middle\n", 8) + bottom + "\n"
	}
	c1 := h.commit("create\n", map[string]string{f: lines("top", "bottom")})
	h.git(nil, "", "branch", "side")
	m1 := h.commit("main edits the top\n", map[string]string{f: lines("TOP", "bottom")})
	h.git(nil, "", "checkout", "-q", "side")
	s1 := h.commit("side edits the bottom\n", map[string]string{f: lines("top", "BOTTOM")})
	s2 := h.commit("side edits another file\n", map[string]string{"other.md": "o\n"})
	h.git(nil, "", "checkout", "-q", "main")
	merge := h.merge("side")
	if got, err := h.r.FileAt("HEAD", f); err != nil || string(got) != lines("TOP", "BOTTOM") {
		t.Fatalf("the merge holds %q, %v", got, err)
	}
	c, err := h.r.CommitAt(merge)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Parents, []string{m1, s2}) {
		t.Errorf("merge parents %q, want %q", c.Parents, []string{m1, s2})
	}
	// The merge differs from both parents: it combines both edits.
	checkHistory(t, h.r, f, 0, merge, s1, m1, c1+"+")
	checkHistory(t, h.r, f, 2, merge, s1)

	// A merge that takes one side's version is not a change of the file;
	// the side's commit is.
	h.git(nil, "", "checkout", "-q", "-b", "side2")
	s3 := h.commit("side2 edits the file\n", map[string]string{f: lines("TOP", "END")})
	h.git(nil, "", "checkout", "-q", "main")
	m2 := h.commit("main edits another file\n", map[string]string{"other2.md": "o\n"})
	h.merge("side2")
	checkHistory(t, h.r, f, 0, s3, merge, s1, m1, c1+"+")
	checkHistory(t, h.r, "other2.md", 0, m2+"+")
}

func TestPathHistoryRefusesBadPaths(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	h.commit("first\n", map[string]string{"a.md": "a\n"})
	for _, bad := range []string{"", ".", "..", "../a.md", "/etc/passwd"} {
		if _, err := h.r.PathHistory(bad, 0); err == nil {
			t.Errorf("PathHistory(%q) succeeded", bad)
		}
	}
}

// historyBenchRepo builds, with git fast-import, a repository of files
// issue files in one directory and commits commits after the first, each
// changing three of them; every tenth commit changes td-004321.md.
func historyBenchRepo(b *testing.B, files, commits int) *Repo {
	b.Helper()
	h := newHistoryRepo(b)
	var s strings.Builder
	body := strings.Repeat("- [ ] a todo item with some words in it\n", 20)
	data := func(content string) {
		fmt.Fprintf(&s, "data %d\n%s\n", len(content), content)
	}
	header := func(i int) {
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter Ada <ada@example.com> %d +0000\n", historyEpoch+i)
		data(fmt.Sprintf("commit %d\n\nTd-Session: ses_%08d\n", i, i))
	}
	header(0)
	for i := range files {
		fmt.Fprintf(&s, "M 100644 inline .todos/issues/td-%06d.md\n", i)
		data(fmt.Sprintf("---\nid: td-%06d\n---\n%s", i, body))
	}
	s.WriteString("M 100644 inline README.md\n")
	data("readme\n")
	for i := 1; i < commits; i++ {
		header(i)
		for k := range 3 {
			n := (i*7919 + k*104729) % files
			if k == 0 && i%10 == 0 {
				n = 4321
			}
			fmt.Fprintf(&s, "M 100644 inline .todos/issues/td-%06d.md\n", n)
			data(fmt.Sprintf("---\nid: td-%06d\n---\n%sedit %d\n", n, body, i))
		}
	}
	h.git(nil, s.String(), "fast-import", "--quiet")
	return h.r
}

// BenchmarkPathHistory10k is what one approve or close pays to read the
// history of an issue file: a fresh Repo, so that no object is cached, on a
// repository of 10,000 issue files in one directory and 200 commits, each of
// which changed that directory, as fast-import packs them (trees stored as
// deltas of each other).
func BenchmarkPathHistory10k(b *testing.B) {
	benchmarkPathHistory(b, historyBenchRepo(b, 10_000, 200))
}

// BenchmarkPathHistory10kLoose is the same with every object loose, as in a
// repository where git gc has not run yet.
func BenchmarkPathHistory10kLoose(b *testing.B) {
	r := historyBenchRepo(b, 10_000, 200)
	packs, err := filepath.Glob(filepath.Join(r.GitDir(), "objects", "pack", "pack-*.pack"))
	if err != nil || len(packs) != 1 {
		b.Fatalf("packs %q, %v", packs, err)
	}
	pack, err := os.ReadFile(packs[0])
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{packs[0], strings.TrimSuffix(packs[0], ".pack") + ".idx"} {
		if err := os.Remove(p); err != nil {
			b.Fatal(err)
		}
	}
	h := &historyRepo{t: b, r: r}
	h.git(nil, string(pack), "unpack-objects", "-q")
	benchmarkPathHistory(b, r)
}

func benchmarkPathHistory(b *testing.B, r *Repo) {
	const f = ".todos/issues/td-004321.md"
	b.ReportAllocs()
	for b.Loop() {
		fresh, err := Open(r.Root())
		if err != nil {
			b.Fatal(err)
		}
		changes, err := fresh.PathHistory(f, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(changes) != 20 {
			b.Fatalf("%d changes, want 20", len(changes))
		}
	}
}

// allObjects lists the objects of the repository.
func allObjects(h *historyRepo) []string {
	h.t.Helper()
	all := strings.Fields(h.git(nil, "", "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	if len(all) < 20 {
		h.t.Fatalf("only %d objects", len(all))
	}
	return all
}

// checkAllObjects reads the objects named through one historyReader,
// requiring that the reader serves them itself and that each content hashes
// to the object's name.
func checkAllObjects(t *testing.T, h *historyRepo, label string, all []string) {
	t.Helper()
	o := h.r.openObjects()
	defer o.close()
	for _, name := range all {
		want := plumbing.NewHash(name)
		typ, data, err := o.objects.Object(want)
		if err != nil {
			t.Errorf("%s: read %s: %v", label, name, err)
			continue
		}
		if got := plumbing.ComputeHash(typ, data); got != want {
			t.Errorf("%s: object %s decodes to a %s hashing to %s", label, name, typ, got)
		}
	}
}

// countDeltas returns how many objects of the repository's packs are
// stored as deltas.
func countDeltas(h *historyRepo) int {
	h.t.Helper()
	packs, _ := filepath.Glob(filepath.Join(h.r.GitDir(), "objects", "pack", "pack-*.idx"))
	n := 0
	for _, p := range packs {
		for _, line := range strings.Split(h.git(nil, "", "verify-pack", "-v", p), "\n") {
			// Delta entries add the chain depth and the base to the five
			// fields of a whole object.
			if f := strings.Fields(line); len(f) == 7 && len(f[0]) == 40 {
				n++
			}
		}
	}
	return n
}

func TestObjectReaderReadsLooseAndPackedObjects(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	big := strings.Repeat("a line of an issue file that changes little\n", 400)
	commits := 12
	if testing.Short() {
		commits = 6 // still enough versions of big.md for git to store deltas
	}
	for i := range commits {
		h.commit(fmt.Sprintf("commit %d\n", i), map[string]string{
			"big.md":                                 big + fmt.Sprintf("edit %d\n", i),
			fmt.Sprintf(".todos/issues/td-%d.md", i): fmt.Sprintf("issue %d\n", i),
			"nested/deeper/file.md":                  strings.Repeat("x", i+1),
		})
	}
	h.git(nil, "", "tag", "-a", "-m", "release", "v1")
	checkAllObjects(t, h, "loose", allObjects(h))

	h.git(nil, "", "repack", "-adq")
	if countDeltas(h) == 0 {
		t.Fatal("the pack holds no deltas")
	}
	checkAllObjects(t, h, "offset deltas", allObjects(h))

	h.git(nil, "", "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
	if countDeltas(h) == 0 {
		t.Fatal("the pack holds no deltas")
	}
	all := allObjects(h)
	checkAllObjects(t, h, "reference deltas", all)

	// Rewrite the index so that every offset but the first goes through the
	// table of 64-bit offsets, as in packs larger than 2 GiB.
	packs, _ := filepath.Glob(filepath.Join(h.r.GitDir(), "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs %q", packs)
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	tmp := filepath.Join(t.TempDir(), "large.idx")
	h.git(nil, "", "index-pack", "--index-version=2,12", "-o", tmp, packs[0])
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if orig, err := os.ReadFile(idx); err != nil || len(b) <= len(orig) {
		t.Fatalf("the rewritten index has no 64-bit offsets (%d bytes, was %d): %v", len(b), len(orig), err)
	}
	os.Remove(idx)
	if err := os.WriteFile(idx, b, 0o444); err != nil {
		t.Fatal(err)
	}
	checkAllObjects(t, h, "64-bit offsets", all)
	checkHistory(t, h.r, "nested/deeper/file.md", 3,
		h.git(nil, "", "rev-parse", "HEAD"), h.git(nil, "", "rev-parse", "HEAD~1"), h.git(nil, "", "rev-parse", "HEAD~2"))
}

func TestHistoryThroughAlternates(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	const f = ".todos/issues/td-1.md"
	c1 := h.commit("add\n", map[string]string{f: "v1\n"})
	h.commit("other\n", map[string]string{"README.md": "r\n"})
	c3 := h.commit("modify\n", map[string]string{f: "v2\n"})
	h.git(nil, "", "repack", "-adq")

	// A clone sharing the objects of the first repository through
	// objects/info/alternates holds no object of its own.
	dir := filepath.Join(t.TempDir(), "clone")
	h.git(nil, "", "clone", "-q", "--shared", h.r.Root(), dir)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Resolve("HEAD~2"); err != nil || got != c1 {
		t.Errorf("Resolve(HEAD~2) = %s, %v; want %s", got, err, c1)
	}
	if got, err := r.FileAt("HEAD", f); err != nil || string(got) != "v2\n" {
		t.Errorf("FileAt = %q, %v", got, err)
	}
	checkHistory(t, r, f, 0, c3, c1+"+")
}

// TestApplyDelta pins the pack reader's delta decoding: deltas are
// applied, and damaged ones refused, a result size the instructions do not
// make among them, before any memory is taken for it.
func TestApplyDelta(t *testing.T) {
	// Not parallel: AllocsPerRun counts the whole process's allocations.
	base := []byte("0123456789abcdef")
	// Base size 16, result size 9: copy 4 bytes from offset 2, insert
	// "XYZ", copy 2 bytes from offset 14.
	delta := []byte{16, 9, 0x80 | 0x01 | 0x10, 2, 4, 3, 'X', 'Y', 'Z', 0x80 | 0x01 | 0x10, 14, 2}
	got, err := applyDelta(base, delta)
	if err != nil || string(got) != "2345XYZef" {
		t.Errorf("applyDelta = %q, %v", got, err)
	}
	for _, bad := range [][]byte{
		{},
		{15, 9},                            // wrong base size
		{16, 9, 0x80 | 0x01 | 0x10, 14, 4}, // copy past the base
		{16, 2, 3, 'X', 'Y', 'Z'},          // more than the result size
		{16, 4, 2, 'X', 'Y'},               // less than the result size
		{16, 1, 0},                         // reserved instruction
		{16, 1, 0x81},                      // truncated copy
		// A result of 1 GiB claimed, 2 bytes made.
		{16, 0x80, 0x80, 0x80, 0x80, 0x04, 2, 'X', 'Y'},
	} {
		if got, err := applyDelta(base, bad); err == nil {
			t.Errorf("applyDelta(%v) = %q, want an error", bad, got)
		}
	}
	huge := []byte{16, 0x80, 0x80, 0x80, 0x80, 0x04, 2, 'X', 'Y'}
	allocs := testing.AllocsPerRun(10, func() { applyDelta(base, huge) })
	if allocs > 1 {
		t.Errorf("a refused delta took %v allocations, want at most the error's", allocs)
	}
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte{16, 9, 0x91, 2, 4, 3, 'X', 'Y', 'Z', 0x91, 14, 2})
	f.Add([]byte(""), []byte{0, 3, 3, 'a', 'b', 'c'})
	f.Add([]byte("0123456789abcdef"), []byte{16, 0x80, 0x80, 0x80, 0x80, 0x04, 2, 'X', 'Y'})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		got, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		_, rest, _ := deltaSize(delta)
		want, _, _ := deltaSize(rest)
		if uint64(len(got)) != want {
			t.Errorf("result of %d bytes, the delta says %d", len(got), want)
		}
	})
}

func FuzzScanTreeEntry(f *testing.F) {
	f.Add([]byte("100644 a.md\x00aaaaaaaaaaaaaaaaaaaa40000 dir\x00bbbbbbbbbbbbbbbbbbbb"), "dir")
	f.Fuzz(func(t *testing.T, tree []byte, name string) {
		scanTreeEntry(bufio.NewReader(bytes.NewReader(tree)), name)
	})
}

// TestPathHistoryReadsUnchangedDirectoriesOnce pins what keeps PathHistory
// cheap in a large repository: a directory's tree is read only in the
// commits that changed it.
func TestPathHistoryReadsUnchangedDirectoriesOnce(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf(".todos/issues/td-%02d.md", i)] = fmt.Sprintf("issue %d\n", i)
	}
	c1 := h.commit("create\n", files)
	for i := range 8 {
		h.commit(fmt.Sprintf("code %d\n", i), map[string]string{"src/main.go": fmt.Sprintf("// %d\n", i)})
	}
	h.commit("other issue\n", map[string]string{".todos/issues/td-07.md": "edited\n"})
	h.commit("ledger\n", map[string]string{".todos/history/td-03.jsonl": "{}\n"})

	for _, packed := range []bool{false, true} {
		if packed {
			h.git(nil, "", "repack", "-adq")
		}
		o := h.r.openObjects()
		head, err := o.resolve("HEAD")
		if err != nil {
			o.close()
			t.Fatal(err)
		}
		w := newTreeWalker(o, []string{".todos", "issues", "td-03.md"})
		changes, err := o.pathHistory(head, w, 0)
		o.close()
		if err != nil {
			t.Fatal(err)
		}
		if got := hashes(changes); !slices.Equal(got, []string{c1 + "+"}) {
			t.Errorf("history %q, want only %s", got, c1)
		}
		// 11 root trees; .todos changed in 3 commits; issues/ in 2.
		if want := []int{11, 3, 2}; !slices.Equal(w.reads, want) {
			t.Errorf("packed %v: trees read at each depth %v, want %v", packed, w.reads, want)
		}
	}
}
