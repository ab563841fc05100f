package gitstress

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCheckoutRace: two td processes add todos to one issue in git mode
// auto while a person switches between two branches. Every todo whose
// command exited 0 must be in the history of the branch that was checked
// out when the command began; a command that saw HEAD move fails and says
// so. TD_RACE_TODOS sets the todos per process (default 10) and
// TD_RACE_RUNS the number of runs (default 1).
func TestCheckoutRace(t *testing.T) {
	for run := range envInt("TD_RACE_RUNS", 1) {
		t.Run(fmt.Sprint(run), func(t *testing.T) { checkoutRace(t, envInt("TD_RACE_TODOS", 10), false) })
	}
}

// TestCheckoutRaceSplitIndex is TestCheckoutRace in a repository whose
// git index is split, which td and git's checkouts both write.
func TestCheckoutRaceSplitIndex(t *testing.T) {
	checkoutRace(t, envInt("TD_RACE_TODOS", 10), true)
}

// flipState follows the person's checkouts: how many succeeded, and
// whether one is running.
type flipState struct {
	mu   sync.Mutex
	done int
	busy bool
}

// read returns the number of checkouts made, -1 while one runs.
func (f *flipState) read() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy {
		return -1
	}
	return f.done
}

func (f *flipState) set(busy, succeeded bool) {
	f.mu.Lock()
	f.busy = busy
	if succeeded {
		f.done++
	}
	f.mu.Unlock()
}

// outcome is one td todo add.
type outcome struct {
	text   string
	ok     bool
	branch string // the branch checked out throughout, when no checkout overlapped
	stderr string
}

func checkoutRace(t *testing.T, perWorker int, split bool) {
	w := newWorld(t)
	if split {
		w.git("config", "core.splitIndex", "true")
		w.git("update-index", "--split-index")
	}
	id := w.createIssue("Raced by checkouts")
	issue := ".todos/issues/" + id + ".md"
	w.git("branch", "other")
	headFile := filepath.Join(w.dir, ".git", "HEAD")
	branchNow := func() string {
		b, _ := os.ReadFile(headFile)
		return strings.TrimPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	}

	var flips flipState
	stop := make(chan struct{})
	flipped, refusedFlips := 0, 0
	var flipper sync.WaitGroup
	flipper.Add(1)
	go func() {
		defer flipper.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			to := "other"
			if branchNow() == "other" {
				to = "main"
			}
			flips.set(true, false)
			err := w.cmd("git", "checkout", "-q", to).Run()
			flips.set(false, err == nil)
			if err == nil {
				flipped++
			} else {
				refusedFlips++
			}
			time.Sleep(time.Duration(20+i*37%280) * time.Millisecond)
		}
	}()

	results := make([][]outcome, 2)
	took := make([]time.Duration, 2)
	var workers sync.WaitGroup
	for k := range results {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := range perWorker {
				text := fmt.Sprintf("worker %d item %03d.", k, i)
				g0 := flips.read()
				b0 := branchNow()
				c := w.cmd(w.td, "todo", "add", "--issue", id, text)
				var stderr bytes.Buffer
				c.Stderr = &stderr
				start := time.Now()
				err := c.Run()
				took[k] += time.Since(start)
				g1 := flips.read()
				o := outcome{text: text, ok: err == nil, stderr: stderr.String()}
				if g0 == g1 && g0 >= 0 {
					o.branch = b0
				}
				results[k] = append(results[k], o)
			}
		}()
	}
	workers.Wait()
	close(stop)
	flipper.Wait()

	var ok, refused, failed, exact, either, lost int
	for _, rs := range results {
		for _, o := range rs {
			switch {
			case o.ok && o.branch != "":
				ok++
				exact++
				if !w.inHistory(o.branch, issue, o.text) {
					lost++
					t.Errorf("%q: td exited 0 on %s, but it is not in %s's history", o.text, o.branch, o.branch)
				}
			case o.ok:
				ok++
				either++
				if !w.inHistory("main", issue, o.text) && !w.inHistory("other", issue, o.text) {
					lost++
					t.Errorf("%q: td exited 0, but it is in neither branch's history", o.text)
				}
			case strings.Contains(o.stderr, "while td was writing"):
				refused++
				if n := strings.Count(strings.TrimSpace(o.stderr), "\n"); n != 0 {
					t.Errorf("%q: the refusal takes %d lines:\n%s", o.text, n+1, o.stderr)
				}
			default:
				failed++
				t.Logf("%q failed: %s", o.text, o.stderr)
			}
		}
	}
	// Todos are only ever added: one committed on a branch must still be
	// at its tip, or a later commit (made from the other branch's file)
	// removed it.
	tips := map[string][]byte{}
	for _, b := range []string{"main", "other"} {
		tips[b], _ = w.cmd("git", "show", b+":"+issue).Output()
	}
	atTips, droppedFromTip := 0, 0
	for _, rs := range results {
		for _, o := range rs {
			if !o.ok {
				continue
			}
			if bytes.Contains(tips["main"], []byte(o.text)) || bytes.Contains(tips["other"], []byte(o.text)) {
				atTips++
			}
			if o.branch != "" && !bytes.Contains(tips[o.branch], []byte(o.text)) {
				droppedFromTip++
				t.Errorf("%q: committed on %s, but a later commit removed it from %s's tip", o.text, o.branch, o.branch)
				if keep := os.Getenv("TD_RACE_KEEP"); keep != "" && droppedFromTip == 1 {
					_ = exec.Command("cp", "-r", w.dir, keep).Run()
				}
				if droppedFromTip == 1 {
					out, _ := w.cmd("git", "log", "--format=%h %p %s", "-S"+o.text, o.branch, "--", issue).CombinedOutput()
					t.Logf("commits changing %q on %s:\n%s", o.text, o.branch, out)
					out, _ = w.cmd("git", "reflog", "-n", "80", "--format=%h %gs").CombinedOutput()
					t.Logf("HEAD's reflog:\n%s", out)
					out, _ = w.cmd("git", "log", "--format=%h %p %s", "-n", "40", o.branch).CombinedOutput()
					t.Logf("%s:\n%s", o.branch, out)
				}
			}
		}
	}
	w.report("td took %v per command", (took[0]+took[1])/time.Duration(2*perWorker))
	w.report("%d td commands: %d exited 0 (%d checked on the branch they began on, %d overlapping a checkout, checked on either), %d refused as HEAD moved, %d failed otherwise; %d lost; %d checkouts made, %d refused by git; %d todos that exited 0 at a branch tip, %d dropped from the tip of the branch they were committed on",
		2*perWorker, ok, exact, either, refused, failed, lost, flipped, refusedFlips, atTips, droppedFromTip)
	if out, err := w.cmd("git", "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}
