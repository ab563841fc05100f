package testscripts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/tdproject/td/cmd/command"
)

// A scenario runs td two ways. `exec td ...` starts a td process: the test
// binary, installed on PATH under the name td, runs command.Main when
// started under that name. Git hooks, `td merge-driver` run by git, shell
// loops, td in the background, td given a standard input (the stdin
// command) and td demo (its scratch repository goes in $TMPDIR) need it.
// Plain `td ...` runs td in the test process through command.RunIn, in the
// script's current directory with the script's environment: the same
// command line, exit status, standard output and standard error, without
// the cost of starting a process, which was most of what a scenario spent.
// Where the test process cannot give td what a process would see, `td`
// starts a process after all (see runTD).

// processEnvKeys are the variables td's git layer reads from the process
// environment rather than from the environment td is given. runTestScripts
// sets them in the test process to the scenarios' defaults; a script that
// changes one runs td as a process, so td sees what a process would.
func processEnvKeys() []string {
	return []string{
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL",
		"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL",
	}
}

// runTestScripts is TestMain for the test binary started by go test: it puts
// td on PATH, gives the process the environment an in-process td reads, and
// runs the tests.
func runTestScripts(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "td-testscripts-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "testscripts: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{bin, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "testscripts: %v\n", err)
			return 1
		}
	}
	name := "td"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if err := installTD(filepath.Join(bin, name)); err != nil {
		fmt.Fprintf(os.Stderr, "testscripts: put td on PATH: %v\n", err)
		return 1
	}
	// testscript makes the scenarios' work directories in $GOTMPDIR.
	if dir := memoryScratch(); dir != "" {
		defer os.RemoveAll(dir)
		os.Setenv("GOTMPDIR", dir)
	}
	os.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	// An empty home: the in-process td finds no global git config, as a td
	// process finds none in the script's empty $HOME.
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	defaults := scenarioEnv()
	for _, k := range processEnvKeys() {
		if v, ok := defaults[k]; ok {
			os.Setenv(k, v)
		} else {
			os.Unsetenv(k)
		}
	}
	return m.Run()
}

// installTD makes path a copy of the test binary (a hard link when it can),
// so that running it as td runs command.Main.
func installTD(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if os.Link(exe, path) == nil {
		return nil
	}
	src, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// tdRunner runs td for the scenarios, which run in parallel.
type tdRunner struct {
	// mu serialises the in-process runs: command.RunIn is not safe for
	// concurrent use.
	mu sync.Mutex
}

// cmd is the script command td: it runs td in the test process (or as a
// process when its environment asks for one, see inProcess) and checks the
// exit status as exec would: zero, or with ! not zero.
func (tr *tdRunner) cmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 0 && args[len(args)-1] == "&" {
		ts.Fatalf("td runs in the test process and cannot run in the background; use exec td ... &")
	}
	code, err := tr.run(ts, args)
	switch {
	case err != nil:
		ts.Fatalf("td: %v", err)
	case neg && code == 0:
		ts.Fatalf("unexpected td success")
	case !neg && code != 0:
		ts.Fatalf("td exited %d", code)
	}
}

// run runs td with args in the script's current directory and returns its
// exit status; its standard output and error become the script's stdout and
// stderr. It runs td in the test process when inProcess allows and the
// command does not echo its file arguments (namesItsFiles), else as a
// process.
func (tr *tdRunner) run(ts *testscript.TestScript, args []string) (code int, err error) {
	if !inProcess(ts) || namesItsFiles(args) {
		err := ts.Exec("td", args...)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	}
	dir := ts.MkAbs(".")
	getenv := func(k string) string {
		if k == "PWD" { // exec sets it for a process
			return dir
		}
		return ts.Getenv(k)
	}
	stdout, stderr := ts.Stdout(), ts.Stderr()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			ts.Fatalf("td panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return command.RunIn(dir, append([]string{"td"}, args...), strings.NewReader(""), stdout, stderr, getenv), nil
}

// inProcess reports whether td in the test process would see what a td
// process started by the script sees: the same values of processEnvKeys,
// and like the test process's empty home no global git config.
func inProcess(ts *testscript.TestScript) bool {
	for _, k := range processEnvKeys() {
		if ts.Getenv(k) != os.Getenv(k) {
			return false
		}
	}
	home, xdg := ts.Getenv("HOME"), ts.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		if _, err := os.Lstat(p); err == nil {
			return false
		}
	}
	return true
}

// namesItsFiles reports whether args may run td onboard or td merge-driver:
// their refusals name the files given on the command line as td opened
// them, which in the test process is from the script's directory, not as
// typed, so they run as a process.
func namesItsFiles(args []string) bool {
	for _, a := range args {
		if a == "onboard" || a == "merge-driver" {
			return true
		}
	}
	return false
}

// checkStdinFeedsExec fails the test when a scenario's stdin command is not
// followed by exec: testscript gives the file only to a process, so an
// in-process td or exits would silently read nothing.
func checkStdinFeedsExec(t *testing.T, files []string) {
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pending := 0
		for i, line := range strings.Split(string(a.Comment), "\n") {
			words := strings.Fields(line)
			for len(words) > 0 && (strings.HasPrefix(words[0], "[") || words[0] == "!") {
				words = words[1:]
			}
			if len(words) == 0 || strings.HasPrefix(words[0], "#") {
				continue
			}
			if pending > 0 && words[0] != "exec" {
				t.Errorf("%s:%d: stdin at line %d feeds only exec, not %s: write exec td", f, i+1, pending, words[0])
			}
			pending = 0
			if words[0] == "stdin" {
				pending = i + 1
			}
		}
	}
}
