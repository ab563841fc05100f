package gitstress

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillAtRandomPoints kills td with SIGKILL at random points of create,
// todo done, edit and close in git mode auto, then runs one more td
// command and checks what the kills left: no stale lock, no temporary file
// git status sees, git fsck --strict clean, td check's verdict on issue
// files against ledgers, and every command that exited 0 in the branch's
// history. TD_KILLS sets the number of kills (default 12).
func TestKillAtRandomPoints(t *testing.T) {
	if os.Getenv("TD_KILLS") == "" && testing.Short() {
		t.Skip("starts a process per kill")
	}
	killAtRandomPoints(t, newWorld(t))
}

// TestKillAtRandomPointsSplitIndex is TestKillAtRandomPoints in a
// repository whose git index is split: td writes .git/index as a split
// index of the shared one, or whole, and a kill must leave git an index
// it reads either way.
func TestKillAtRandomPointsSplitIndex(t *testing.T) {
	if os.Getenv("TD_KILLS") == "" && testing.Short() {
		t.Skip("starts a process per kill")
	}
	w := newWorld(t)
	w.git("config", "core.splitIndex", "true")
	w.git("update-index", "--split-index")
	killAtRandomPoints(t, w)
	if out := w.git("ls-files", "--stage", ".todos/issues"); !strings.Contains(out, ".todos/issues/") {
		t.Errorf("git ls-files lists no issue in the split index:\n%s", out)
	}
}

// killAtRandomPoints runs the kills of TestKillAtRandomPoints in w.
func killAtRandomPoints(t *testing.T, w *world) {
	kills := envInt("TD_KILLS", 12)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	t.Logf("seed: kills=%d", kills)

	type issue struct {
		id     string
		steps  []string // not yet done
		closed bool
	}
	var issues []*issue
	for i := range 3 {
		id := w.createIssue(fmt.Sprintf("Killed again and again %d", i))
		is := &issue{id: id}
		args := []string{"todo", "add", "--issue", id}
		for j := range 30 {
			s := fmt.Sprintf("step %02d", j)
			is.steps = append(is.steps, s)
			args = append(args, s)
		}
		w.mustTD(args...)
		issues = append(issues, is)
	}

	// The kills land anywhere in a command's run: the window is a little
	// longer than an edit takes on this machine now.
	var took []time.Duration
	for i := range 3 {
		start := time.Now()
		w.mustTD("edit", issues[0].id, "--append", fmt.Sprintf("calibration %d", i))
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	window := max(took[1]*3/2, 20*time.Millisecond)
	t.Logf("a td edit takes %v; kills land within %v of the start", took[1], window)

	// check is what must be in main's history for a command that exited 0.
	type check struct {
		what, path, text string
	}
	var checks []check
	killed, completed, failed := 0, 0, 0
	var failures []string
	for k := 0; killed < kills && k < 4*kills; k++ {
		var args []string
		var ok func(stdout string) []check
		open := func() *issue {
			var cands []*issue
			for _, is := range issues {
				if !is.closed {
					cands = append(cands, is)
				}
			}
			if len(cands) == 0 {
				return nil
			}
			return cands[rng.IntN(len(cands))]
		}
		is := open()
		op := rng.IntN(4)
		if is == nil {
			op = 0
		}
		switch op {
		case 0:
			title := fmt.Sprintf("Made under fire %d", k)
			args = []string{"create", title}
			ok = func(stdout string) []check {
				f := strings.Fields(stdout)
				if len(f) < 2 {
					return nil
				}
				id := strings.TrimSuffix(f[1], ":")
				issues = append(issues, &issue{id: id})
				return []check{{"create " + id, ".todos/issues/" + id + ".md", "title: " + title}}
			}
		case 1:
			if len(is.steps) == 0 {
				continue
			}
			j := rng.IntN(len(is.steps))
			step := is.steps[j]
			args = []string{"todo", "done", "--issue", is.id, step}
			ok = func(string) []check {
				is.steps = append(is.steps[:j], is.steps[j+1:]...)
				return []check{{"todo done " + is.id + " " + step, ".todos/issues/" + is.id + ".md", "[x] " + step}}
			}
		case 2:
			text := fmt.Sprintf("round %d", k)
			args = []string{"edit", is.id, "--append", text}
			ok = func(string) []check {
				return []check{{"edit " + is.id, ".todos/issues/" + is.id + ".md", text}}
			}
		case 3:
			args = []string{"close", is.id, "--yes"}
			ok = func(string) []check {
				is.closed = true
				return []check{{"close " + is.id, ".todos/issues/" + is.id + ".md", "status: closed"}}
			}
		}
		c := w.cmd(w.td, args...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		_ = c.Process.Signal(syscall.SIGKILL)
		err := c.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
			completed++
			checks = append(checks, ok(stdout.String())...)
		case errorAs(err, &exit) && exit.ProcessState.Sys().(syscall.WaitStatus).Signaled():
			killed++
		default:
			failed++
			failures = append(failures, strings.Join(args, " ")+": "+strings.TrimSpace(stderr.String()))
			if op == 3 && strings.Contains(stderr.String(), "it is closed") {
				is.closed = true // an earlier close was killed after it wrote
			}
		}
	}

	// The next td command.
	next := w.cmd(w.td, "list", "--all")
	var nextErr bytes.Buffer
	next.Stderr = &nextErr
	if err := next.Run(); err != nil {
		t.Errorf("td list after the kills: %v\n%s", err, nextErr.String())
	}

	var locks []string
	_ = filepath.WalkDir(filepath.Join(w.dir, ".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".lock") || strings.HasPrefix(d.Name(), "tmp_obj_td")) {
			locks = append(locks, p)
		}
		return nil
	})
	if recs, _ := os.ReadDir(filepath.Join(w.dir, ".git", "td-locks")); len(recs) > 0 {
		for _, r := range recs {
			locks = append(locks, ".git/td-locks/"+r.Name())
		}
	}
	status := w.git("status", "--porcelain", "--untracked-files=all")
	var temps []string
	for _, line := range strings.Split(status, "\n") {
		if strings.Contains(line, "tmp") {
			temps = append(temps, line)
		}
	}
	fsck, fsckErr := w.cmd("git", "fsck", "--strict", "--no-dangling").CombinedOutput()
	var missing []string
	for _, c := range checks {
		if !w.inHistory("main", c.path, c.text) {
			missing = append(missing, c.what)
		}
	}
	checkOut, checkErr := w.cmd(w.td, "check").CombinedOutput()
	disagreements := ledgerDisagreements(t, w.dir)

	t.Logf("%d kills: %d commands killed, %d exited 0, %d failed", kills, killed, completed, failed)
	t.Logf("after the next td command: %d stale locks, records or temporary objects %q; %d temporary files in git status %q", len(locks), locks, len(temps), temps)
	t.Logf("git fsck --strict: %v %s", fsckErr, bytes.TrimSpace(fsck))
	t.Logf("%d commands exited 0; %d missing from main's history %q", len(checks), len(missing), missing)
	t.Logf("td check: %v %s", checkErr, bytes.TrimSpace(checkOut))
	t.Logf("%d disagreements between issue files and ledgers %q", len(disagreements), disagreements)
	for _, f := range failures {
		t.Logf("failed: %s", f)
	}
	if len(locks) > 0 {
		t.Errorf("%d stale locks or temporary objects after the next td command: %q", len(locks), locks)
	}
	if len(temps) > 0 {
		t.Errorf("git status sees temporary files: %q", temps)
	}
	if fsckErr != nil {
		t.Errorf("git fsck --strict: %v\n%s", fsckErr, fsck)
	}
	if len(missing) > 0 {
		t.Errorf("commands that exited 0 are missing from main's history: %q", missing)
	}
	// A transaction lands whole or is undone by the next td command, so an
	// issue file and its ledger never disagree.
	if checkErr != nil || len(disagreements) > 0 {
		t.Errorf("td check: %v; %d disagreements", checkErr, len(disagreements))
	}
}

func errorAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// ledgerDisagreements compares each issue file with its ledger: an issue
// has a "created" entry, and a closed issue a "closed" one after its last
// reopening; a ledger has an issue file.
func ledgerDisagreements(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join(dir, ".todos", "issues", "*.md"))
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".md")
		data, err := os.ReadFile(f)
		if err != nil {
			out = append(out, id+": "+err.Error())
			continue
		}
		ledger, err := os.ReadFile(filepath.Join(dir, ".todos", "history", id+".jsonl"))
		if err != nil {
			out = append(out, id+": issue without a ledger")
			continue
		}
		if !bytes.Contains(ledger, []byte(`"action":"created"`)) {
			out = append(out, id+": no created entry")
		}
		closed := bytes.Contains(data, []byte("\nstatus: closed\n"))
		last := bytes.LastIndex(ledger, []byte(`"action":"closed"`))
		reopened := bytes.LastIndex(ledger, []byte(`"action":"reopened"`))
		if closed && last <= reopened {
			out = append(out, id+": closed without a closed entry")
		}
		if !closed && last > reopened {
			out = append(out, id+": a closed entry, but the file is not closed")
		}
	}
	ledgers, _ := filepath.Glob(filepath.Join(dir, ".todos", "history", "*.jsonl"))
	for _, l := range ledgers {
		id := strings.TrimSuffix(filepath.Base(l), ".jsonl")
		if _, err := os.Stat(filepath.Join(dir, ".todos", "issues", id+".md")); err != nil {
			out = append(out, id+": ledger without an issue file")
		}
	}
	return out
}
