//go:build unix

package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests here end a real process at each step of a commit, with SIGKILL
// (nothing cleaned up) or a catchable signal, and check what git then sees.

// crashHelperEnv names the repository the helper process commits in; the
// step to stop at and the signal follow in crashStepEnv and crashSigEnv.
const (
	crashHelperEnv = "TD_GITREPO_CRASH_REPO"
	crashStepEnv   = "TD_GITREPO_CRASH_STEP"
	crashSigEnv    = "TD_GITREPO_CRASH_SIGNAL"
)

// crashSteps are the points of a commit at which the helper dies.
var crashSteps = []string{"objects", "index-written", "ref-locked", "index-moved", "ref-moved"}

// TestCrashHelper is the helper process: it commits file a and sends
// itself the signal at the step named in the environment.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashHelperEnv)
	if dir == "" {
		t.Skip("run by the crash tests")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sig := syscall.SIGKILL
	switch os.Getenv(crashSigEnv) {
	case "TERM":
		sig = syscall.SIGTERM
	case "INT":
		sig = syscall.SIGINT
	case "HUP":
		sig = syscall.SIGHUP
	}
	die := func(step string) func() {
		return func() {
			if os.Getenv(crashStepEnv) == step {
				_ = syscall.Kill(os.Getpid(), sig)
				time.Sleep(5 * time.Second) // the signal ends the process first
				os.Exit(99)
			}
		}
	}
	_, err = r.commit(commitReq("td's commit", "a"), commitHooks{
		afterObjects:    die("objects"),
		afterIndexWrite: die("index-written"),
		afterRefLock:    die("ref-locked"),
		afterIndexMove:  die("index-moved"),
		afterRefMove:    die("ref-moved"),
	})
	if err != nil {
		t.Fatal(err)
	}
	os.Exit(98) // the step was not reached
}

// runCrashHelper commits in dir from another process that receives sig at
// step, and returns how the process ended.
func runCrashHelper(t *testing.T, dir, step, sig string) *os.ProcessState {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashHelperEnv+"="+dir, crashStepEnv+"="+step, crashSigEnv+"="+sig)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("helper at %s: %v\n%s", step, err, out)
	}
	return exit.ProcessState
}

// crashRepo makes a repository with git where a is committed as 1 and the
// person has a change of their own staged (u), then writes a = 2 for td to
// commit.
func crashRepo(t *testing.T) string { return crashRepoSplit(t, false) }

// crashRepoSplit is crashRepo, with a split index when split is true: ten
// more files in the shared index, so that td's change is small enough to
// be written as a split index.
func crashRepoSplit(t *testing.T, split bool) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	writeAt(t, dir, "a", "1\n")
	writeAt(t, dir, "u", "1\n")
	if split {
		old := time.Now().Add(-time.Hour)
		for i := range 10 {
			writeAt(t, dir, "f"+strconv.Itoa(i), "f\n")
		}
		// Older than the index: entries written in its second are racily
		// clean, and td would replace them all, past what a split index
		// holds.
		for _, f := range []string{"a", "u", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"} {
			if err := os.Chtimes(filepath.Join(dir, f), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "start")
	if split {
		runGit(t, dir, "update-index", "--split-index")
	}
	writeAt(t, dir, "u", "staged by the person\n")
	runGit(t, dir, "add", "u")
	writeAt(t, dir, "a", "2\n")
	return dir
}

// crashShapes are the repositories the crash tests run in.
var crashShapes = []struct {
	name  string
	split bool
}{{"", false}, {"/split index", true}}

func writeAt(t *testing.T, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitLocks lists the lock files under the git directory.
func gitLocks(t *testing.T, dir string) []string {
	t.Helper()
	var locks []string
	_ = filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			rel, _ := filepath.Rel(dir, p)
			locks = append(locks, filepath.ToSlash(rel))
		}
		return nil
	})
	return locks
}

// tempObjects lists td's temporary object files.
func tempObjects(t *testing.T, dir string) []string {
	t.Helper()
	var tmps []string
	_ = filepath.WalkDir(filepath.Join(dir, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "tmp_obj") {
			tmps = append(tmps, p)
		}
		return nil
	})
	return tmps
}

// checkNoRevert is the property the order of writes guarantees: once the
// person removes every lock file, as git tells them to, the branch and the
// index agree about a: either td's commit is there and the index has it,
// or it is not and a is at most staged. A commit the index contradicts
// would be undone by the person's next commit.
func checkNoRevert(t *testing.T, dir, when string) {
	t.Helper()
	for _, l := range gitLocks(t, dir) {
		os.Remove(filepath.Join(dir, l))
	}
	head := runGit(t, dir, "show", "HEAD:a")
	staged := runGit(t, dir, "show", ":a")
	if head == "2\n" && staged != "2\n" {
		t.Errorf("%s: HEAD has td's a but the index has %q: the next commit would revert it", when, staged)
	}
	if u := runGit(t, dir, "show", ":u"); u != "staged by the person\n" {
		t.Errorf("%s: the person's staged u became %q", when, u)
	}
	if u := runGit(t, dir, "show", "HEAD:u"); u != "1\n" {
		t.Errorf("%s: td committed the person's u", when)
	}
	runGit(t, dir, "fsck", "--strict", "--no-dangling")
	// git itself can commit on top of what was left.
	runGit(t, dir, "commit", "-q", "-m", "the person's commit")
	if got := runGit(t, dir, "show", "HEAD:a"); head == "2\n" && got != "2\n" {
		t.Errorf("%s: the person's commit reverted td's a to %q", when, got)
	}
}

func TestCommitSurvivesSIGKILLAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per step")
	}
	gitBinary(t)
	t.Parallel()
	for _, shape := range crashShapes {
		for _, step := range crashSteps {
			commitSurvivesSIGKILLAt(t, step, shape.name, shape.split)
		}
	}
}

func commitSurvivesSIGKILLAt(t *testing.T, step, shape string, split bool) {
	t.Run(step+shape, func(t *testing.T) {
		t.Parallel()
		dir := crashRepoSplit(t, split)
		st := runCrashHelper(t, dir, step, "KILL")
		if ws, ok := st.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("helper ended with %v, want killed at %s", st, step)
		}
		// td's next run removes the locks the killed process left,
		// with a warning, and commits at once.
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if split && (step == "index-moved" || step == "ref-moved") {
			if _, ix := readIndexLayout(t, r); ix.link == nil {
				t.Errorf("td wrote the whole index, not a split one")
			}
		}
		left := gitLocks(t, dir)
		n := r.ClearStaleLocks()
		if n != len(left) {
			t.Errorf("removed %d locks of %q", n, left)
		}
		if n > 0 {
			w := r.TakeWarnings()
			if len(w) != 1 || !strings.HasPrefix(w[0], "removed .git/") || !strings.HasSuffix(w[0], ", left by a td process that was killed") {
				t.Errorf("warnings %q", w)
			}
		}
		if l := gitLocks(t, dir); len(l) != 0 {
			t.Errorf("locks left: %q", l)
		}
		if tmp := tempObjects(t, dir); len(tmp) != 0 {
			t.Errorf("temporary objects left: %q", tmp)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", lockRecordDir, "")); err == nil {
			if ents, _ := os.ReadDir(filepath.Join(dir, ".git", lockRecordDir)); len(ents) != 0 {
				t.Errorf("records left: %v", ents)
			}
		}
		checkNoRevert(t, dir, step)
	})
}

// TestCommitStateAtEveryStepIsOneGitAccepts looks at the repository as the
// person would if td died at each step and nobody ran td again: after
// removing the locks, as git tells them to, nothing is reverted.
func TestCommitStateAtEveryStepIsOneGitAccepts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per step")
	}
	gitBinary(t)
	t.Parallel()
	for _, shape := range crashShapes {
		for _, step := range crashSteps {
			t.Run(step+shape.name, func(t *testing.T) {
				t.Parallel()
				dir := crashRepoSplit(t, shape.split)
				runCrashHelper(t, dir, step, "KILL")
				checkNoRevert(t, dir, step)
			})
		}
	}
}

func TestCommitRemovesItsLocksOnSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per signal")
	}
	gitBinary(t)
	t.Parallel()
	for _, sig := range []struct {
		name string
		sig  syscall.Signal
	}{{"INT", syscall.SIGINT}, {"TERM", syscall.SIGTERM}, {"HUP", syscall.SIGHUP}} {
		for _, step := range []string{"index-written", "ref-locked"} {
			t.Run(sig.name+"/"+step, func(t *testing.T) {
				t.Parallel()
				dir := crashRepo(t)
				st := runCrashHelper(t, dir, step, sig.name)
				ws, ok := st.Sys().(syscall.WaitStatus)
				if !ok || !ws.Signaled() || ws.Signal() != sig.sig {
					t.Fatalf("helper ended with %v, want ended by SIG%s", st, sig.name)
				}
				if l := gitLocks(t, dir); len(l) != 0 {
					t.Errorf("locks left after SIG%s: %q", sig.name, l)
				}
				if ents, _ := os.ReadDir(filepath.Join(dir, ".git", lockRecordDir)); len(ents) != 0 {
					t.Errorf("records left: %v", ents)
				}
				// Nothing moved: the index and HEAD are as before.
				if head := runGit(t, dir, "show", "HEAD:a"); head != "1\n" {
					t.Errorf("HEAD:a is %q", head)
				}
				checkNoRevert(t, dir, step)
			})
		}
	}
}

// deadPID returns the ID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(gitBinary(t), "--version")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestStaleLockIsRemovedOnlyWhenTheRecordProvesItTds(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	mustCommit(t, r, commitReq("first", "a"))
	pid := deadPID(t)
	lock := filepath.Join(r.GitDir(), "index.lock")
	if err := os.WriteFile(lock, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(lock)
	if err != nil {
		t.Fatal(err)
	}
	recDir := filepath.Join(r.GitDir(), lockRecordDir)
	if err := os.MkdirAll(recDir, 0o777); err != nil {
		t.Fatal(err)
	}
	record := func(stamp fileStamp) {
		t.Helper()
		data := "td " + itoa(pid) + "\nlock " + stamp.String() + " " + lock + "\n"
		if err := os.WriteFile(filepath.Join(recDir, itoa(pid)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A lock written since td's record (git made a new one) stays.
	other := stampOf(fi)
	other.mtime--
	record(other)
	if n := r.ClearStaleLocks(); n != 0 {
		t.Fatalf("removed %d locks the record does not match", n)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a lock td cannot prove is its own was removed: %v", err)
	}
	// The record of a live process proves nothing either.
	data := "td " + itoa(os.Getppid()) + "\nlock " + stampOf(fi).String() + " " + lock + "\n"
	if err := os.WriteFile(filepath.Join(recDir, itoa(os.Getppid())), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := r.ClearStaleLocks(); n != 0 {
		t.Fatalf("removed the lock of a live process")
	}
	// Nor does one that names the live process's start time.
	if start := processStart(os.Getppid()); start != "" {
		data := "td " + itoa(os.Getppid()) + " " + start + "\nlock " + stampOf(fi).String() + " " + lock + "\n"
		if err := os.WriteFile(filepath.Join(recDir, itoa(os.Getppid())), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if n := r.ClearStaleLocks(); n != 0 {
			t.Fatalf("removed the lock of a live process whose start the record names")
		}
	}
	os.Remove(filepath.Join(recDir, itoa(os.Getppid())))

	// A record whose process ID now belongs to another process (its start
	// time differs) is a killed td's: its lock goes.
	if processStart(os.Getppid()) != "" {
		data := "td " + itoa(os.Getppid()) + " 1\nlock " + stampOf(fi).String() + " " + lock + "\n"
		if err := os.WriteFile(filepath.Join(recDir, itoa(os.Getppid())), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if n := r.ClearStaleLocks(); n != 1 {
			t.Fatalf("removed %d locks of a record whose process ID was reused, want 1", n)
		}
		if _, err := os.Stat(filepath.Join(recDir, itoa(os.Getppid()))); err == nil {
			t.Fatal("the reused ID's record stayed")
		}
		r.TakeWarnings()
		if err := os.WriteFile(lock, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err = os.Lstat(lock); err != nil {
			t.Fatal(err)
		}
	}

	// The dead process's own lock goes, and the next commit does not wait.
	record(stampOf(fi))
	writeFile(t, r, "a", "2\n")
	start := time.Now()
	res := mustCommit(t, r, commitReq("second", "a"))
	if d := time.Since(start); d > time.Second {
		t.Errorf("the commit waited %v", d)
	}
	if res.Hash == "" {
		t.Error("no commit")
	}
	w := r.TakeWarnings()
	if len(w) != 1 || w[0] != "removed .git/index.lock, left by a td process that was killed" {
		t.Errorf("warnings %q", w)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
