package gitstress

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillBoardHTML kills td board --html with SIGKILL at random points of
// a first run into a new directory and of runs over a site already there.
// A killed first run leaves no site or a whole one, never a board linking
// to pages not written. After each kill td runs again to the end: that
// run must take the directory up, leave no temporary file behind, and
// write every page.
// TD_KILLS sets the number of kills (default 12).
func TestKillBoardHTML(t *testing.T) {
	if os.Getenv("TD_KILLS") == "" && testing.Short() {
		t.Skip("starts a process per kill")
	}
	w := newWorld(t)
	const issues = 40
	for i := range issues {
		w.createIssue(fmt.Sprintf("On the board %d", i))
	}
	kills := envInt("TD_KILLS", 12)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 15))
	start := time.Now()
	w.mustTD("board", "--html", filepath.Join(t.TempDir(), "calibration"))
	window := max(time.Since(start)*3/2, 20*time.Millisecond)
	t.Logf("a site takes %v; kills land within %v of the start", time.Since(start), window)

	site := filepath.Join(t.TempDir(), "site")
	killed := 0
	for k := 0; k < kills; k++ {
		if k%2 == 0 {
			site = filepath.Join(t.TempDir(), "site") // a first run, killed
		}
		c := w.cmd(w.td, "board", "--html", site)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		_ = c.Process.Signal(syscall.SIGKILL)
		if err := c.Wait(); err != nil {
			killed++
		}
		if k%2 == 0 {
			// A first run, killed: its site is whole or absent.
			if _, err := os.Stat(site); err == nil {
				if n := countPages(site); n != issues {
					t.Errorf("kill %d: a killed first run left a site of %d issue pages (want none or %d)", k, n, issues)
				}
			}
		}

		w.mustTD("board", "--html", site)
		var temps []string
		pages := 0
		_ = filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
			case strings.Contains(d.Name(), ".tmp-"):
				temps = append(temps, p)
			case filepath.Base(filepath.Dir(p)) == "issues" && strings.HasSuffix(p, ".html"):
				pages++
			}
			return nil
		})
		if len(temps) > 0 {
			t.Errorf("kill %d: temporary files left after the next run: %v", k, temps)
		}
		if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil || pages != issues {
			t.Errorf("kill %d: the next run wrote %d issue pages (want %d), board: %v", k, pages, issues, err)
		}
	}
	t.Logf("%d of %d runs killed", killed, kills)
	if killed == 0 {
		t.Error("no run was killed: the window is too short to say anything")
	}
}

// countPages counts the issue pages of the site in dir.
func countPages(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, "issues"))
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".html") {
			n++
		}
	}
	return n
}
