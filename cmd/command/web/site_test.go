package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/site"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteSite(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	res, err := web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test", Ranges: []string{f.rng}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Issues != 6 || len(res.Diffs) != 1 || res.Files != 10 {
		t.Errorf("wrote %d issue pages, %d diffs, %d files; want 6, 1, 10 (the board, the stats, the style sheet, the diff, the issues)", res.Issues, len(res.Diffs), res.Files)
	}
	board := read(t, filepath.Join(out, "index.html"))
	for _, want := range []string{
		`<h2 id="col-in_progress"><span>In progress</span>`,
		`href="issues/` + f.auth + `.html"`,
		`<span class="progress">3/5 done</span>`,
		`1 of 5 children closed`,
		`href="diff/main..feature.html"`,
	} {
		if !strings.Contains(board, want) {
			t.Errorf("the board lacks %s", want)
		}
	}
	issue := read(t, filepath.Join(out, "issues", f.auth+".html"))
	for _, want := range []string{
		`<a href="../issues/` + f.epic + `.html" rel="up">`,
		`<li class="t-completed"><span class="mark" aria-hidden="true">[x]</span> <span class="text">Register the OAuth app</span>`,
		`<blockquote>the state parameter must be verified</blockquote>`,
		`A user can sign in with GitHub`,
		`commented by Op`,
		`commit <span class="hash">`,
		`href="../style.css"`,
	} {
		if !strings.Contains(issue, want) {
			t.Errorf("the issue page lacks %s", want)
		}
	}
	epic := read(t, filepath.Join(out, "issues", f.epic+".html"))
	if strings.Contains(epic, "<script>") || strings.Contains(epic, "<img") || !strings.Contains(epic, `<a href="https://example.com/logo.png">logo</a>`) {
		t.Errorf("the epic's description is not made safe:\n%s", epic)
	}
	diff := read(t, filepath.Join(out, "diff", "main..feature.html"))
	if !strings.Contains(diff, `criterion completed: &#34;A user can sign in with GitHub&#34;`) {
		t.Errorf("the diff page lacks the criterion met:\n%s", diff)
	}
	// The pages' policy allows no script and no inline style: none is
	// written, so nothing is silently blocked.
	for _, page := range []string{board, issue, epic, diff} {
		if strings.Contains(page, "style=") || strings.Contains(page, "<script") {
			t.Errorf("a page holds an inline style or a script")
		}
	}
	manifest := read(t, filepath.Join(out, web.ManifestFile))
	if !strings.Contains(manifest, "issues/"+f.auth+".html\t") {
		t.Errorf("manifest: %s", manifest)
	}
}

func TestWriteSiteKeepsWhatItDidNotWrite(t *testing.T) {
	f := newFixture(t)
	out := t.TempDir()
	// A directory holding someone's files is refused.
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := web.WriteSite(f.store(t), out, web.SiteOptions{}); err == nil || !strings.Contains(err.Error(), "holds files td did not write") {
		t.Fatalf("writing into a directory of other files: %v", err)
	}
	// A file is refused.
	file := filepath.Join(out, "notes.txt")
	if _, err := web.WriteSite(f.store(t), file, web.SiteOptions{}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Fatalf("writing into a file: %v", err)
	}
	// Into its own site, a second run replaces its pages, removes the page
	// of an issue gone since, and leaves a file someone added alone.
	site1 := filepath.Join(out, "site")
	if _, err := web.WriteSite(f.store(t), site1, web.SiteOptions{}); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(site1, "issues", "notes.html")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(f.dir, repo.TodosDir, repo.IssuesDir, f.open+".md")); err != nil {
		t.Fatal(err)
	}
	res, err := web.WriteSite(f.store(t), site1, web.SiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 1 || res.Issues != 5 {
		t.Errorf("removed %d, wrote %d issue pages; want 1 and 5", res.Removed, res.Issues)
	}
	// The epic's page changed (a child fewer), the other children's did
	// not: they are not written again.
	if res.Unchanged < 4 {
		t.Errorf("%d pages unchanged; want at least the 4 other children's", res.Unchanged)
	}
	if _, err := os.Stat(filepath.Join(site1, "issues", f.open+".html")); !os.IsNotExist(err) {
		t.Errorf("the deleted issue's page is still there: %v", err)
	}
	if read(t, mine) != "mine" {
		t.Error("a file td did not write was changed")
	}
}

func get(t *testing.T, sv *web.Server, method, path, host string) (int, string) {
	t.Helper()
	r := sv.Respond(method, path, host)
	return r.Status, string(r.Body)
}

func TestServer(t *testing.T) {
	f := newFixture(t)
	sv := web.NewServer(func() (*repo.Store, error) { return f.store(t), nil }, "test", []string{f.rng}, boardFilter())
	const host = "127.0.0.1:7420"
	for _, c := range []struct {
		method, path, host string
		code               int
		want               string
	}{
		{"GET", "/", host, 200, `<h2 id="col-open">`},
		{"GET", "/index.html", "localhost:7420", 200, `<h2 id="col-open">`},
		{"GET", "/issues/" + f.auth + ".html", host, 200, `Write the callback`},
		{"GET", "/diff/main..feature.html", host, 200, `criterion completed`},
		{"GET", "/diff/main.html", host, 200, `Changes in .todos from main`},
		{"GET", "/style.css", host, 200, `.board {`},
		{"GET", "/issues/td-nosuch.html", host, 404, `There is no issue td-nosuch`},
		{"GET", "/diff/nosuch.html", host, 404, `unknown revision`},
		{"GET", "/etc/passwd", host, 404, `No such page`},
		{"POST", "/", host, 405, `td serve only reads`},
		{"GET", "/", "evil.example:7420", 403, `answers only to 127.0.0.1 and localhost`},
	} {
		code, body := get(t, sv, c.method, c.path, c.host)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s %s (Host %s): %d, want %d with %q\n%.300s", c.method, c.path, c.host, code, c.code, c.want, body)
		}
	}
	if n := sv.Reads(); n != 1 {
		t.Errorf("the store was read %d times for unchanged files; want 1", n)
	}
	// A td command changes .todos: the next page is built from it.
	td(t, f.dir, "todo", "done", "--issue", f.auth, "Test against a fake provider")
	if _, body := get(t, sv, "GET", "/", host); !strings.Contains(body, `<span class="progress">4/5 done</span>`) {
		t.Errorf("the board did not follow the change:\n%s", body)
	}
	if n := sv.Reads(); n != 2 {
		t.Errorf("the store was read %d times; want 2", n)
	}
	// A hand edit in place changes no directory: it shows once the
	// background check, at most a second apart, has seen it.
	p := filepath.Join(f.dir, repo.TodosDir, repo.IssuesDir, f.open+".md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "title: Password reset", "title: Password reset by email", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		_, body := get(t, sv, "GET", "/", host)
		if strings.Contains(body, "Password reset by email") {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the board did not follow a hand edit in 10 s:\n%s", body)
		}
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:8080": true, "[::1]:80": true, "127.1.2.3:9": true,
		"0.0.0.0:8080": false, ":8080": false, "192.168.1.2:80": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if got := web.Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestPaths(t *testing.T) {
	for _, c := range []struct{ rng, path string }{
		{"main", "diff/main.html"},
		{"main..feature", "diff/main..feature.html"},
		{"origin/main...feature/x", "diff/origin_main..feature_x.html"},
	} {
		b, h := site.ParseRange(c.rng)
		if got := site.DiffPath(b, h); got != c.path {
			t.Errorf("DiffPath(%q) = %q, want %q", c.rng, got, c.path)
		}
	}
}

// A first site is built beside its directory and renamed into place
// whole: nothing is left beside it, and the staging directory a killed
// first run left (its process gone) is removed by the next.
func TestWriteSiteFirstRunIsWholeOrAbsent(t *testing.T) {
	f := newFixture(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	stale := filepath.Join(parent, ".site.td-new-2147483646-123")
	if err := os.MkdirAll(filepath.Join(stale, "issues"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{web.ManifestFile, "index.html"} {
		if err := os.WriteFile(filepath.Join(stale, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mine := filepath.Join(parent, ".other.td-new-2147483646-1") // another site's: left
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != out || res.Issues != 6 {
		t.Errorf("wrote %d issue pages into %s", res.Issues, res.Dir)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".other.td-new-2147483646-1 site" {
		t.Errorf("beside the site: %v", names)
	}
	if _, err := os.Stat(filepath.Join(out, "issues", f.auth+".html")); err != nil {
		t.Error(err)
	}
}
