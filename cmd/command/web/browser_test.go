package web_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/repo"
)

// chromium finds the browser the test drives: $TD_CHROMIUM, else the
// Debian package's. Without one the test is skipped, but not in CI, which
// must run it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("TD_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if exe, err := exec.LookPath(p); err == nil {
			return exe
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium binary at /usr/bin/chromium (or $TD_CHROMIUM): CI must run the browser test; apt-get install chromium")
	}
	t.Skip("no chromium binary at /usr/bin/chromium (or $TD_CHROMIUM): the browser test is skipped; apt-get install chromium runs it")
	return ""
}

// local reports whether a page's request stays on this machine: a file,
// inline data, or the test's server on 127.0.0.1.
func local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "file", "data", "about":
		return true
	case "http":
		return u.Hostname() == "127.0.0.1"
	}
	return false
}

// artefact saves a file for people to look at (a full screenshot at
// quality 100 is a PNG) where $TD_ARTIFACTS says, else in the system's
// temporary directory.
func artefact(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := os.Getenv("TD_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s", p)
}

// TestBrowser opens the generated site from file:// and td serve's pages
// over HTTP in headless Chromium, reads the board, follows board -> issue
// -> parent epic -> board, opens the diff page, and fails if any page asks
// for anything beyond 127.0.0.1 and file://.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test starts Chromium: not in -short")
	}
	exe := chromium(t)
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test", Ranges: []string{f.rng}}); err != nil {
		t.Fatal(err)
	}
	ln, err := web.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- web.NewServer(func() (*repo.Store, error) { return f.store(t), nil }, "test", []string{f.rng}, boardFilter()).Serve(ln, stop)
	}()
	defer func() {
		close(stop)
		if err := <-served; err != nil {
			t.Errorf("td serve: %v", err)
		}
	}()
	srvURL := "http://" + ln.Addr().String()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	// Open the tab first, so the listener sees every request after.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var requests, foreign []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			if !local(e.Request.URL) {
				foreign = append(foreign, e.Request.URL)
			}
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, c := range []struct{ name, board string }{
		{"file", "file://" + filepath.ToSlash(out) + "/index.html"},
		{"serve", srvURL + "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
				t.Helper()
				if err := chromedp.Do(ctx, steps...); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			text := func(sel string) string {
				t.Helper()
				v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
				if err != nil {
					t.Fatalf("the text of %s: %v", sel, err)
				}
				return v
			}
			list := func(js string) []string {
				t.Helper()
				v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
				if err != nil {
					t.Fatalf("%s: %v", js, err)
				}
				return v
			}
			location := func() string {
				t.Helper()
				v, err := chromedp.Run(ctx, chromedp.Location())
				if err != nil {
					t.Fatal(err)
				}
				return v
			}

			do("open the board", chromedp.Navigate(c.board), chromedp.WaitVisible(chromedp.CSS(`.board`)))
			if got, want := list(`[...document.querySelectorAll('.column h2 > span:first-child')].map(e => e.textContent)`),
				[]string{"Open", "In progress", "Blocked", "In review", "Closed, last 7 days"}; !slices.Equal(got, want) {
				t.Errorf("columns %q, want %q", got, want)
			}
			if got := text(`li.card:has(a[href$="` + f.auth + `.html"]) .progress`); got != "3/5 done" {
				t.Errorf("the card's progress says %q, want 3/5 done", got)
			}
			if got := list(`[...document.querySelectorAll('li.card:has(a[href$="` + f.auth + `.html"]) progress')].map(p => p.value + ' of ' + p.max)`); !slices.Equal(got, []string{"3 of 5"}) {
				t.Errorf("the card's progress bar is %q, want 3 of 5", got)
			}
			if got := text(`li.card:has(a[href$="` + f.epic + `.html"]) .children`); got != "1 of 5 children closed" {
				t.Errorf("the epic's card says %q, want 1 of 5 children closed", got)
			}
			if got := list(`[getComputedStyle(document.querySelector('header')).backgroundColor]`); !slices.Equal(got, []string{"rgb(22, 32, 44)"}) {
				t.Errorf("the style sheet did not apply: header background %q", got)
			}
			if c.name == "file" {
				shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				artefact(t, "td-board.png", shot)
			}

			do("board -> issue", chromedp.Click(chromedp.CSS(`li.card a[href$="`+f.auth+`.html"]`)), chromedp.WaitVisible(chromedp.CSS(`#h-criteria`)))
			if got := location(); !strings.HasSuffix(got, "/issues/"+f.auth+".html") {
				t.Errorf("the card led to %s", got)
			}
			if got, want := list(`[...document.querySelectorAll('ul.criteria li')].map(li => li.className + ' ' + li.querySelector('.text').textContent)`),
				[]string{"t-completed A user can sign in with GitHub", "t-pending A failed sign-in says why"}; !slices.Equal(got, want) {
				t.Errorf("criteria %q, want %q", got, want)
			}
			if got, want := list(`[...document.querySelectorAll('ul.todos li')].map(li => li.className + ' ' + li.querySelector('.text').textContent)`),
				[]string{"t-completed Register the OAuth app", "t-completed Write the callback", "t-in_progress Test against a fake provider"}; !slices.Equal(got, want) {
				t.Errorf("todos %q, want %q", got, want)
			}

			do("issue -> parent epic", chromedp.Click(chromedp.CSS(`a[rel="up"]`)), chromedp.WaitVisible(chromedp.CSS(`#h-children`)))
			if got := text(`h1`); got != f.epic+" Accounts" {
				t.Errorf("the parent link led to %q", got)
			}
			do("epic -> board", chromedp.Click(chromedp.CSS(`header a.site`)), chromedp.WaitVisible(chromedp.CSS(`.board`)))
			if got := location(); !strings.HasSuffix(got, "/index.html") {
				t.Errorf("the site's name led to %s", got)
			}

			if c.name == "file" {
				// The stats page: the chart is drawn (its bars have a size
				// and the style sheet's fill), the table says the same.
				do("board -> stats", chromedp.Click(chromedp.CSS(`nav a[href$="stats.html"]`)), chromedp.WaitVisible(chromedp.CSS(`svg.chart`)))
				if got := list(`[...document.querySelectorAll('svg.chart rect')].map(r => r.getBBox().width > 0 && getComputedStyle(r).fill !== 'rgb(0, 0, 0)' ? 'drawn' : 'not drawn').filter((v, i, a) => a.indexOf(v) === i)`); !slices.Equal(got, []string{"drawn"}) {
					t.Errorf("the chart's bars are %q, want all drawn in the style sheet's colours", got)
				}
				if got := list(`[...document.querySelectorAll('svg.chart rect')].length > 0 ? ['bars'] : []`); !slices.Equal(got, []string{"bars"}) {
					t.Errorf("the chart has no bars")
				}
				if got := text(`#h-counts`); !strings.HasSuffix(got, "issues") {
					t.Errorf("the stats page's count heading is %q", got)
				}
				shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				artefact(t, "td-stats.png", shot)
				do("stats -> board", chromedp.Click(chromedp.CSS(`header a.site`)), chromedp.WaitVisible(chromedp.CSS(`.board`)))
			}

			do("board -> diff", chromedp.Click(chromedp.CSS(`nav a[href$="diff/main..feature.html"]`)), chromedp.WaitVisible(chromedp.CSS(`.diff-issue`)))
			diff := text(`main`)
			for _, want := range []string{f.auth + " Sign in with GitHub", `criterion completed: "A user can sign in with GitHub"`, `todo completed: "Write the callback" [Backend]`} {
				if !strings.Contains(diff, want) {
					t.Errorf("the diff page lacks %s:\n%s", want, diff)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(foreign) > 0 {
		t.Errorf("pages asked for what is not on this machine: %q", foreign)
	}
	if len(requests) < 8 {
		t.Errorf("only %d requests seen: the network listener is not working", len(requests))
	}
	t.Logf("%d requests, all local; browsing took %s", len(requests), time.Since(start).Round(time.Millisecond))
}
