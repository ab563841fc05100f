// Package testscripts runs td's CLI scenarios: every testscripts/*.txtar is
// a story told with td's real commands and the exact output they print.
package testscripts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tdproject/td/cmd/command"
	"github.com/tdproject/td/repo/gitrepo"
	"gopkg.in/yaml.v3"
)

func TestMain(m *testing.M) {
	if command.StartedAsTD() {
		command.Exit()
	}
	os.Exit(runTestScripts(m))
}

// scenarioEnv is the environment every scenario starts with, besides HOME
// and XDG_CONFIG_HOME, which are its own.
func scenarioEnv() map[string]string {
	return map[string]string{
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Lead Operator",
		"GIT_AUTHOR_EMAIL":    "lead@example.com",
		"GIT_COMMITTER_NAME":  "Lead Operator",
		"GIT_COMMITTER_EMAIL": "lead@example.com",
		"TD_NOW":              "2026-11-21T10:00:00Z",
		"TD_RAND_SEED":        "testscript",
		"NO_COLOR":            "1",
	}
}

// TestScripts runs every scenario. Set TD_UPDATE_SCRIPTS=1 to rewrite the
// golden files of failing cmp commands (then read the diff before committing).
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	checkStdinFeedsExec(t, files)
	// Binary inputs a txtar cannot hold (marcus/td's SQLite databases).
	fixtures, err := filepath.Abs(filepath.Join("..", "repo", "exchange", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	tr := &tdRunner{}
	runScenarios(t, stressFirst(t, files), testscript.Params{
		UpdateScripts: os.Getenv("TD_UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			for k, v := range scenarioEnv() {
				env.Setenv(k, v)
			}
			env.Setenv("FIXTURES", fixtures)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"td":        tr.cmd,
			"gitinit":   cmdGitInit,
			"jsonlen":   cmdJSONLen,
			"countdir":  cmdCountDir,
			"backdate":  cmdBackdate,
			"exits":     func(ts *testscript.TestScript, neg bool, args []string) { cmdExits(ts, neg, args, tr) },
			"replace":   cmdReplace,
			"bigissue":  cmdBigIssue,
			"chomp":     cmdChomp,
			"dropline":  cmdDropLine,
			"stalelock": cmdStaleLock,
			"ciscript":  cmdCIScript,
		},
	})
}

// gitinit [DIR] creates a git repository through go-git, so scenarios that
// are not about git need no git program.
func cmdGitInit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! gitinit")
	}
	dir := "."
	if len(args) > 0 {
		dir = args[0]
	}
	dir = ts.MkAbs(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	if _, err := gitrepo.Init(dir); err != nil {
		ts.Fatalf("git init: %v", err)
	}
}

// jsonlen N [KEY...] checks that the JSON on stdout (or the value reached
// through the keys) is an array or object of N elements.
func cmdJSONLen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: jsonlen N [KEY...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("jsonlen: %v", err)
	}
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("jsonlen: stdout is not JSON: %v", err)
	}
	for _, k := range args[1:] {
		m, ok := v.(map[string]any)
		if !ok {
			ts.Fatalf("jsonlen: no key %q", k)
		}
		v = m[k]
	}
	got := -1
	switch x := v.(type) {
	case []any:
		got = len(x)
	case map[string]any:
		got = len(x)
	}
	if (got == want) == neg {
		ts.Fatalf("jsonlen: got %d elements, want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// backdate PATH... sets the modification time of each file, or of every
// file in each directory, to a fixed moment in the past (2026-11-20 23:00
// UTC): old enough that td's caches trust what they recorded about it, as
// they would a file nobody touched for a while.
func cmdBackdate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: backdate PATH...")
	}
	old := time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC)
	for _, a := range args {
		p := ts.MkAbs(a)
		fi, err := os.Stat(p)
		if err != nil {
			ts.Fatalf("backdate: %v", err)
		}
		paths := []string{p}
		if fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				ts.Fatalf("backdate: %v", err)
			}
			paths = paths[:0]
			for _, e := range entries {
				if e.Type().IsRegular() {
					paths = append(paths, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, q := range paths {
			if err := os.Chtimes(q, old, old); err != nil {
				ts.Fatalf("backdate: %v", err)
			}
		}
	}
}

// countdir DIR SUFFIX N checks that DIR holds N files ending in SUFFIX.
func cmdCountDir(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: countdir DIR SUFFIX N")
	}
	ents, err := os.ReadDir(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("countdir: %v", err)
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), args[1]) && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	if (fmt.Sprint(n) == args[2]) == neg {
		ts.Fatalf("countdir: %s holds %d %s files, want %s", args[0], n, args[1], args[2])
	}
}

// exits N CMD [ARGS...] runs a program like exec (td like the td command)
// and checks its exit status is exactly N, so scenarios can tell usage
// errors (2) from refusals (1).
func cmdExits(ts *testscript.TestScript, neg bool, args []string, tr *tdRunner) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N CMD [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if args[1] == "td" {
		if got, err = tr.run(ts, args[2:]); err != nil {
			ts.Fatalf("exits: %v", err)
		}
	} else if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// replace OLD NEW FILE replaces every OLD in FILE with NEW, as a person
// editing the file by hand would.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace OLD NEW FILE")
	}
	p := ts.MkAbs(args[2])
	data, err := os.ReadFile(p)
	if err != nil {
		ts.Fatalf("replace: %v", err)
	}
	if !strings.Contains(string(data), args[0]) {
		ts.Fatalf("replace: %s does not contain %q", args[2], args[0])
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), args[0], args[1])), 0o644); err != nil {
		ts.Fatalf("replace: %v", err)
	}
}

// dropline N FILE deletes line N (1-based) of FILE, as a person editing
// an append-only log by hand would.
func cmdDropLine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: dropline N FILE")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		ts.Fatalf("dropline: bad line number %q", args[0])
	}
	p := ts.MkAbs(args[1])
	data, err := os.ReadFile(p)
	if err != nil {
		ts.Fatalf("dropline: %v", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if n > len(lines) || lines[n-1] == "" {
		ts.Fatalf("dropline: %s has no line %d", args[1], n)
	}
	lines = append(lines[:n-1], lines[n:]...)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		ts.Fatalf("dropline: %v", err)
	}
}

// chomp FILE removes the file's final line ending, to test files that end
// without one (a txtar archive cannot hold such a file).
func cmdChomp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chomp FILE")
	}
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	if err != nil {
		ts.Fatalf("chomp: %v", err)
	}
	data = []byte(strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		ts.Fatalf("chomp: %v", err)
	}
}

// bigissue PATH ID SIZE [FILL] writes a well-formed issue file of SIZE
// bytes whose body repeats FILL ("x" by default; \n in it is a line break),
// to check the size limit and hostile bodies without committing a large
// file.
func cmdBigIssue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: bigissue PATH ID SIZE [FILL]")
	}
	size, err := strconv.Atoi(args[2])
	if err != nil {
		ts.Fatalf("bigissue: %v", err)
	}
	fill := "x"
	if len(args) == 4 {
		fill = strings.ReplaceAll(args[3], `\n`, "\n")
	}
	head := "---\nid: " + args[1] + "\ntitle: Big\n---\n"
	n := max(0, size-len(head)-1)
	body := strings.Repeat(fill, n/len(fill)) + strings.Repeat("x", n%len(fill)) + "\n"
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(head+body), 0o644); err != nil {
		ts.Fatalf("bigissue: %v", err)
	}
}

// ciscript FILE OUT writes the shell script of td's job in a CI file td
// init --ci wrote: the run of the step "td check and td diff" of a GitHub
// workflow, or the first script entry of the job td of a GitLab file. The
// scenario then runs the very script the service would.
func cmdCIScript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ciscript FILE OUT")
	}
	var doc struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
		TD struct {
			Script []string `yaml:"script"`
		} `yaml:"td"`
	}
	if err := yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("ciscript: %v", err)
	}
	script := ""
	for _, j := range doc.Jobs {
		for _, s := range j.Steps {
			if s.Name == "td check and td diff" {
				script = s.Run
			}
		}
	}
	if script == "" && len(doc.TD.Script) > 0 {
		script = doc.TD.Script[0]
	}
	if script == "" {
		ts.Fatalf("ciscript: no td job script in %s", args[0])
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(script), 0o644); err != nil {
		ts.Fatalf("ciscript: %v", err)
	}
}
