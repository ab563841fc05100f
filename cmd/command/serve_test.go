package command

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
)

func TestServeParse(t *testing.T) {
	testParse(t, (*runner).serveCommand, []parseCase[ServeOptions]{
		{name: "defaults", argv: []string{"serve"}, want: ServeOptions{Addr: defaultServeAddr}},
		{name: "flags", argv: []string{"serve", "--addr", "localhost:0", "--diff", "main", "--diff", "a..b", "-l", "auth", "--epic", "td-a0b"},
			want: ServeOptions{Addr: "localhost:0", Ranges: []string{"main", "a..b"}, Labels: []string{"auth"}, Epic: "td-a0b"}},
		{name: "no port", argv: []string{"serve", "--addr", "127.0.0.1"}, usage: true},
		{name: "argument", argv: []string{"serve", "site"}, usage: true},
	})
}

// TestServeRun starts td serve on a free port, reads the board it serves
// and stops it as Ctrl-C would.
func TestServeRun(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		return map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}[k]
	}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: repo.Options{Env: getenv}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &runner{st: &streams{in: strings.NewReader(""), out: &out, errOut: io.Discard}, getenv: getenv, dir: dir}
	urls := make(chan string, 1)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- r.runServe(&ServeOptions{Addr: "127.0.0.1:0", ready: func(u string) { urls <- u }, stop: stop})
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("td serve ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("td serve did not start")
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<h2 id="col-open">`) {
		t.Errorf("GET %s: %d\n%s", url, resp.StatusCode, body)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := "Serving the board of " + filepath.Clean(dir) + " at " + url + " (read-only; Ctrl-C stops)\n"
	if out.String() != want {
		t.Errorf("td serve printed %q, want %q", out.String(), want)
	}
}

func TestBoardHTMLParse(t *testing.T) {
	testParse(t, (*runner).boardCommand, []parseCase[BoardOptions]{
		{name: "html", argv: []string{"board", "--html", "site", "--diff", "main", "-l", "auth"},
			want: BoardOptions{HTML: "site", Ranges: []string{"main"}, Limit: -1, Filter: board.Filter{Labels: []string{"auth"}, RecentDays: board.DefaultRecentDays}}},
		{name: "empty html", argv: []string{"board", "--html", ""}, usage: true},
		{name: "diff without html", argv: []string{"board", "--diff", "main"}, usage: true},
	})
}
