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

// TestCheckoutRaceStage: two td processes add todos to one issue in git
// mode stage (the default) while a person commits what is staged and
// switches between two branches, again and again. A todo whose command
// exited 0 with no checkout overlapping it is in the history of the
// branch it began on and in no other's; no todo committed on a branch is
// dropped from its tip by a later commit; a command a checkout overtook
// either exited 0 with its todo on one branch, or was refused as HEAD
// moved, with nothing written. TD_RACE_STAGE_TODOS sets the todos per
// process: 100 by default (200 commands, within go test's budget);
// TD_RACE_STAGE_TODOS=500 runs 1,000 commands, some five minutes.
func TestCheckoutRaceStage(t *testing.T) {
	perWorker := envInt("TD_RACE_STAGE_TODOS", 100)
	w := newWorld(t)
	cfg := filepath.Join(w.dir, ".todos", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, bytes.Replace(data, []byte("mode: auto"), []byte("mode: stage"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("commit", "-q", "--no-verify", "-am", "Back to git mode stage")
	id := w.createIssue("Raced by checkouts")
	issue := ".todos/issues/" + id + ".md"
	w.git("commit", "-q", "--no-verify", "-m", "File the issue")
	// The branches differ in the issue from the start, so that git
	// refuses a checkout that would carry a staged todo across.
	w.git("checkout", "-q", "-b", "other")
	w.mustTD("todo", "add", "--issue", id, "other's own todo.")
	w.git("commit", "-q", "--no-verify", "-m", "other's todo")
	w.git("checkout", "-q", "main")
	w.mustTD("todo", "add", "--issue", id, "main's own todo.")
	w.git("commit", "-q", "--no-verify", "-m", "main's todo")

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
			// The person commits what td staged, then switches.
			_ = w.cmd("git", "commit", "-q", "--no-verify", "-m", "wip on "+branchNow()).Run()
			err := w.cmd("git", "checkout", "-q", to).Run()
			flips.set(false, err == nil)
			if err == nil {
				flipped++
			} else {
				refusedFlips++
			}
			time.Sleep(time.Duration(5+i*37%60) * time.Millisecond)
		}
	}()

	results := make([][]outcome, 2)
	var workers sync.WaitGroup
	for k := range results {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := range perWorker {
				text := fmt.Sprintf("worker %d item %04d.", k, i)
				g0 := flips.read()
				b0 := branchNow()
				c := w.cmd(w.td, "todo", "add", "--issue", id, text)
				var stderr bytes.Buffer
				c.Stderr = &stderr
				err := c.Run()
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
	// What is still in the work tree is the checked-out branch's.
	w.git("add", "-A", ".todos")
	_ = w.cmd("git", "commit", "-q", "--no-verify", "-m", "last of "+branchNow()).Run()

	var ok, refused, failed, exact, either, lost, leaked int
	for _, rs := range results {
		for _, o := range rs {
			inMain, inOther := w.inHistory("main", issue, o.text), w.inHistory("other", issue, o.text)
			switch {
			case o.ok && o.branch != "":
				ok++
				exact++
				if !map[string]bool{"main": inMain, "other": inOther}[o.branch] {
					lost++
					t.Errorf("%q: td exited 0 on %s, but it is not in %s's history", o.text, o.branch, o.branch)
				}
				if inMain && inOther {
					leaked++
					t.Errorf("%q: td wrote it on %s, and it is in both branches' history", o.text, o.branch)
					if keep := os.Getenv("TD_RACE_KEEP"); keep != "" && leaked == 1 {
						_ = exec.Command("cp", "-r", w.dir, keep).Run()
					}
					if leaked == 1 {
						out, _ := w.cmd("git", "log", "--all", "--format=%h %p %d %s", "-S"+o.text, "--", issue).CombinedOutput()
						t.Logf("commits changing it:\n%s", out)
						out, _ = w.cmd("git", "log", "--all", "--graph", "--format=%h %d %s", "-n", "30").CombinedOutput()
						t.Logf("graph:\n%s", out)
					}
				}
			case o.ok:
				ok++
				either++
				if !inMain && !inOther {
					lost++
					t.Errorf("%q: td exited 0, but it is in neither branch's history", o.text)
				}
			case strings.Contains(o.stderr, "while td was writing"):
				refused++
				if inMain || inOther {
					leaked++
					t.Errorf("%q: refused as HEAD moved, yet it is in a branch's history", o.text)
				}
			default:
				// A checkout removes and writes files one by one: td may
				// find the issue missing, and must then write nothing.
				failed++
				t.Logf("%q failed: %s", o.text, strings.TrimSpace(o.stderr))
				if inMain || inOther {
					leaked++
					t.Errorf("%q: failed, yet it is in a branch's history", o.text)
				}
			}
		}
	}
	// Todos are only ever added: one at a branch's tip stays there.
	tips := map[string][]byte{}
	for _, b := range []string{"main", "other"} {
		tips[b], _ = w.cmd("git", "show", b+":"+issue).Output()
	}
	dropped := 0
	for _, b := range []string{"main", "other"} {
		if !bytes.Contains(tips[b], []byte(b+"'s own todo.")) {
			dropped++
			t.Errorf("%s's own todo is gone from its tip", b)
		}
	}
	for _, rs := range results {
		for _, o := range rs {
			if o.ok && o.branch != "" && !bytes.Contains(tips[o.branch], []byte(o.text)) {
				dropped++
				t.Errorf("%q: written on %s, but gone from %s's tip", o.text, o.branch, o.branch)
			}
		}
	}
	w.report("%d td commands in git mode stage: %d exited 0 (%d on the branch they began on, %d overlapping a checkout), %d refused as HEAD moved, %d failed otherwise; %d lost, %d on the wrong branch, %d dropped from a tip; %d checkouts made, %d refused by git",
		2*perWorker, ok, exact, either, refused, failed, lost, leaked, dropped, flipped, refusedFlips)
	if out, err := w.cmd("git", "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}
