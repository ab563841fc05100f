package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tdproject/td/cmd/command/web"
)

// longTitles adds to the fixture the titles that broke the board: a path
// no space breaks, and a 499-character word.
func longTitles(t *testing.T, f *fixture) (path, word string) {
	t.Helper()
	path = create(t, f.dir, "Handle src/components/authentication/providers/github/OAuthCallbackHandler.tsx")
	word = create(t, f.dir, strings.Repeat("x", 499))
	return path, word
}

// writeLongSite writes the fixture's site into a new directory.
func writeLongSite(t *testing.T, f *fixture) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	if _, err := web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test", Ranges: []string{f.rng}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPagesValidate runs html-validate (its recommended rules) over every
// page of a site whose issues include over-long titles. It needs the
// html-validate program: $TD_HTML_VALIDATE or html-validate on $PATH
// (npm install html-validate); without it the test is skipped.
func TestPagesValidate(t *testing.T) {
	exe := os.Getenv("TD_HTML_VALIDATE")
	if exe == "" {
		var err error
		if exe, err = exec.LookPath("html-validate"); err != nil {
			t.Skip("html-validate is not installed (npm install html-validate, or set $TD_HTML_VALIDATE)")
		}
	}
	f := newFixture(t)
	longTitles(t, f)
	out := writeLongSite(t, f)
	pages, err := filepath.Glob(filepath.Join(out, "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(out, "*", "*.html"))
	pages = append(pages, more...)
	if len(pages) < 10 {
		t.Fatalf("only %d pages: %v", len(pages), pages)
	}
	cmd := exec.Command(exe, append([]string{"--formatter", "text"}, pages...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("html-validate: %v\n%s", err, msg)
	}
}

// TestBrowserLayout opens the board of a site with over-long titles in
// Chromium, wide and at a phone's 390 px: wide, no column is wider than
// another and the page does not scroll sideways; narrow, one column shows
// at a time, the list of columns jumps to each, and the page itself still
// does not scroll sideways.
func TestBrowserLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test starts Chromium: not in -short")
	}
	exe := chromium(t)
	f := newFixture(t)
	longTitles(t, f)
	out := writeLongSite(t, f)
	board := "file://" + filepath.ToSlash(out) + "/index.html"

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	list := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	sideways := `[document.documentElement.scrollWidth > document.documentElement.clientWidth ? 'the page scrolls sideways' : 'fits']`

	do("open the board wide", chromedp.EmulateViewport(1400, 900), chromedp.Navigate(board), chromedp.WaitVisible(chromedp.CSS(`.board`)))
	if got := list(`[...new Set([...document.querySelectorAll('.column')].map(c => Math.round(c.getBoundingClientRect().width)))].map(String)`); len(got) != 1 {
		t.Errorf("the columns are of %d widths (%q): a title widened its column", len(got), got)
	}
	if got := list(sideways); !slices.Equal(got, []string{"fits"}) {
		t.Errorf("wide: %q", got)
	}
	if got := list(`[getComputedStyle(document.querySelector('.columns-nav')).display]`); !slices.Equal(got, []string{"none"}) {
		t.Errorf("wide, the list of columns shows: %q", got)
	}

	do("open the board at 390 px", chromedp.EmulateViewport(390, 844), chromedp.Navigate(board), chromedp.WaitVisible(chromedp.CSS(`.columns-nav`)))
	shown := `[...document.querySelectorAll('.column')].filter(c => { const r = c.getBoundingClientRect(); return Math.min(r.right, innerWidth) - Math.max(r.left, 0) > innerWidth / 2; }).map(c => c.querySelector('h2 span').textContent)`
	if got := list(shown); !slices.Equal(got, []string{"Open"}) {
		t.Errorf("at 390 px the columns in view are %q, want only Open", got)
	}
	if got := list(sideways); !slices.Equal(got, []string{"fits"}) {
		t.Errorf("at 390 px: %q", got)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	artefact(t, "td-board-390.png", shot)
	do("pick In review", chromedp.Click(chromedp.CSS(`.columns-nav a[href="#col-in_review"]`)), chromedp.Sleep(300*time.Millisecond))
	if got := list(shown); !slices.Equal(got, []string{"In review"}) {
		t.Errorf("after picking In review the columns in view are %q", got)
	}
}

// TestPagesAxe runs axe-core's accessibility rules (WCAG 2 A and AA) in
// Chromium over the board, the stats page and an issue's page of a site
// with over-long titles, wide and at 390 px. It needs axe.min.js from the
// axe-core package: $TD_AXE, else it is skipped (npm install axe-core).
func TestPagesAxe(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test starts Chromium: not in -short")
	}
	axePath := os.Getenv("TD_AXE")
	if axePath == "" {
		t.Skip("axe-core is not installed: npm install axe-core and set $TD_AXE to its axe.min.js")
	}
	axe, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	exe := chromium(t)
	f := newFixture(t)
	longTitles(t, f)
	out := writeLongSite(t, f)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	// axe.run is asynchronous: its verdict lands in a global the test
	// then polls for. What axe could not decide counts too (it reports an
	// aria-label on a plain span so), but for colour contrast, which it
	// cannot measure over the chart's SVG.
	run := string(axe) + `;window.__axe = null; axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(r => { window.__axe = r.violations.concat(r.incomplete.filter(v => v.id !== 'color-contrast')).map(v => v.id + ': ' + v.help + ' (' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join('; ') + ')'); }); 1`
	for _, page := range []string{"index.html", "stats.html", "issues/" + f.auth + ".html"} {
		for _, width := range []int64{1400, 390} {
			url := "file://" + filepath.ToSlash(out) + "/" + page
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`main`))); err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](run)); err != nil {
				t.Fatalf("inject axe into %s: %v", page, err)
			}
			var violations []string
			for i := 0; ; i++ {
				v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__axe`))
				if err == nil && v != nil {
					violations = v
					break
				}
				if i > 100 {
					t.Fatalf("axe gave no verdict on %s", page)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(violations) > 0 {
				t.Errorf("%s at %d px: %s", page, width, strings.Join(violations, "\n  "))
			}
		}
	}
}
