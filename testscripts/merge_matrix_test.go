package testscripts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/cmd/command"
)

// The merge matrix: for every pair of td commands, one run on a branch and
// one on main, what a merge of the branch into main does with td's merge
// driver and without it (git alone, as at a hosting service's merge
// button). TestMergeMatrix runs every pair against real git and pins the
// result in td help merging; when the behaviour changes it fails and
// prints the new matrix, and TD_UPDATE_SCRIPTS=1 writes it into the topic.

// matrixTopic is the help topic that publishes the matrix.
const matrixTopic = "../cmd/command/help/topics/merging.md"

// matrixCommand is one row and column of the matrix: td commands run on
// one side, {side} replaced by "branch" or "main" where the two sides
// must give different values.
type matrixCommand struct {
	name string
	desc string
	args [][]string
}

// The issue most pairs work on, td-qkm5oz, has a description, a
// criterion and five steps, the first in progress; td-t3y9ft and
// td-jv9dom are there to link to. The last three commands work on
// td-3ozieg, which has a description only: its first criterion, its first
// steps and a paragraph appended to it.
var matrixCommands = []matrixCommand{
	{"rename", "td edit --title", [][]string{{"edit", "td-qkm5oz", "--title", "Sign in ({side})"}}},
	{"priority", "td edit --priority", [][]string{{"edit", "td-qkm5oz", "--priority", "{priority}"}}},
	{"label", "td edit --add-label", [][]string{{"edit", "td-qkm5oz", "--add-label", "{side}"}}},
	{"link", "td link", [][]string{{"link", "td-qkm5oz", "blocked_by", "{other}"}}},
	{"send", "td send (the assignee)", [][]string{{"send", "td-qkm5oz", "--quiet"}}},
	{"start", "td start", [][]string{{"start", "td-qkm5oz"}}},
	{"review", "td start, td review --force", [][]string{{"start", "td-qkm5oz"}, {"review", "td-qkm5oz", "--force"}}},
	{"close", "td close --resolution wontfix", [][]string{{"close", "td-qkm5oz", "--resolution", "wontfix", "--reason", "not now ({side})", "--yes"}}},
	{"step", "td todo add", [][]string{{"todo", "add", "--issue", "td-qkm5oz", "Step of the {side}"}}},
	{"criterion", "td todo add --kind criterion", [][]string{{"todo", "add", "--issue", "td-qkm5oz", "--kind", "criterion", "Criterion of the {side}"}}},
	{"done 2nd", "td todo done, the 2nd step", [][]string{{"todo", "done", "--issue", "td-qkm5oz", "Step 2"}}},
	{"done 3rd", "td todo done, the 3rd step (next to the 2nd)", [][]string{{"todo", "done", "--issue", "td-qkm5oz", "Step 3"}}},
	{"done 5th", "td todo done, the 5th step (apart from the 2nd and 3rd)", [][]string{{"todo", "done", "--issue", "td-qkm5oz", "Step 5"}}},
	{"note 4th", "td todo note, the 4th step (next to the 5th)", [][]string{{"todo", "note", "--issue", "td-qkm5oz", "Step 4", "A note from the {side}."}}},
	{"append", "td edit --append", [][]string{{"edit", "td-qkm5oz", "--append", "A paragraph from the {side}."}}},
	{"comment", "td comment", [][]string{{"comment", "td-qkm5oz", "A comment from the {side}."}}},
	{"criterion 1", "td todo add --kind criterion, the first, on td-3ozieg", [][]string{{"todo", "add", "--issue", "td-3ozieg", "--kind", "criterion", "Criterion of the {side}"}}},
	{"steps 1", "td todo set, the first steps, on td-3ozieg", [][]string{{"todo", "set", "--issue", "td-3ozieg", "First step of the {side}", "Second step of the {side}"}}},
	{"append 1", "td edit --append, on td-3ozieg", [][]string{{"edit", "td-3ozieg", "--append", "A paragraph from the {side}."}}},
}

// Outcomes of one merge.
const (
	mergedClean   = "."
	mergedResolve = "r"
	mergedByHand  = "C"
)

// matrixEnv runs git and td for the matrix in one scratch directory.
type matrixEnv struct {
	t    *testing.T
	env  map[string]string
	home string
}

func (m *matrixEnv) getenv(k string) string { return m.env[k] }

// environ is the environment of a git process.
func (m *matrixEnv) environ() []string {
	out := os.Environ()
	for k, v := range m.env {
		out = append(out, k+"="+v)
	}
	return out
}

// git runs git in dir and returns its exit status and output.
func (m *matrixEnv) git(dir string, args ...string) (int, string) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, m.environ()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		m.t.Fatalf("git %v: %v", args, err)
	}
	return 0, string(out)
}

// mustGit runs git and fails the test unless it succeeds.
func (m *matrixEnv) mustGit(dir string, args ...string) string {
	code, out := m.git(dir, args...)
	if code != 0 {
		m.t.Fatalf("git %v in %s: exit %d\n%s", args, dir, code, out)
	}
	return out
}

// td runs td in the test process, in dir.
func (m *matrixEnv) td(dir string, args ...string) (int, string) {
	var out bytes.Buffer
	code := command.RunIn(dir, append([]string{"td"}, args...), strings.NewReader(""), &out, &out, m.getenv)
	return code, out.String()
}

func (m *matrixEnv) mustTD(dir string, args ...string) {
	if code, out := m.td(dir, args...); code != 0 {
		m.t.Fatalf("td %v in %s: exit %d\n%s", args, dir, code, out)
	}
}

// apply runs a command's td commands as the given side.
func (m *matrixEnv) apply(dir string, c matrixCommand, side string) {
	repl := strings.NewReplacer("{side}", side, "{priority}", map[string]string{"branch": "P1", "main": "P3"}[side],
		"{other}", map[string]string{"branch": "td-t3y9ft", "main": "td-jv9dom"}[side])
	for _, args := range c.args {
		a := make([]string, len(args))
		for i, x := range args {
			a[i] = repl.Replace(x)
		}
		m.mustTD(dir, a...)
	}
}

// mergePair runs branch on a branch and main on main in a fresh clone of
// base, merges the branch into main, and returns the outcome: clean, or
// stopped and finished by td resolve, or stopped for a person. A merge
// td finished must leave td check without a violation.
func (m *matrixEnv) mergePair(base, dir string, branch, main matrixCommand, driver bool) string {
	m.mustGit("", "clone", "-q", base, dir)
	// The clone stands for both sides: a claim published to base would
	// reach the next pair's clone.
	m.mustGit(dir, "remote", "remove", "origin")
	if err := os.CopyFS(filepath.Join(dir, ".todos", "local"), os.DirFS(filepath.Join(base, ".todos", "local"))); err != nil {
		m.t.Fatal(err)
	}
	if driver {
		m.mustGit(dir, "config", "merge.td.name", "td issue file merge")
		m.mustGit(dir, "config", "merge.td.driver", "td merge-driver %O %A %B %P")
	}
	// Each side draws its own random IDs, as two clones do: two td sends
	// make two sessions.
	m.mustGit(dir, "checkout", "-q", "-b", "branch")
	m.env["TD_NOW"], m.env["TD_RAND_SEED"] = "2026-11-21T11:00:00Z", "branch"
	m.apply(dir, branch, "branch")
	m.mustGit(dir, "commit", "-q", "-am", "branch")
	// The sides are two clones: a claim the branch's td send took lives
	// in the branch's clone, not in main's.
	for _, ref := range strings.Fields(m.mustGit(dir, "for-each-ref", "--format=%(refname)", "refs/td/")) {
		m.mustGit(dir, "update-ref", "-d", ref)
	}
	m.mustGit(dir, "checkout", "-q", "main")
	m.env["TD_NOW"], m.env["TD_RAND_SEED"] = "2026-11-21T12:00:00Z", "main"
	m.apply(dir, main, "main")
	m.mustGit(dir, "commit", "-q", "-am", "main")
	outcome := mergedClean
	if code, _ := m.git(dir, "merge", "--no-edit", "branch"); code != 0 {
		if code, _ := m.td(dir, "resolve"); code != 0 {
			return mergedByHand
		}
		m.mustGit(dir, "commit", "-q", "--no-edit")
		outcome = mergedResolve
	}
	if code, out := m.td(dir, "check"); code != 0 {
		m.t.Errorf("branch %s, main %s (driver %v): td check after the merge:\n%s", branch.name, main.name, driver, out)
	}
	return outcome
}

// TestMergeMatrix runs every pair of matrixCommands against real git, with
// and without td's merge driver, and checks the matrix td help merging
// publishes.
func TestMergeMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git about 1,500 times: go test without -short runs it")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git plays the user here")
	}
	scratch := t.TempDir()
	m := &matrixEnv{t: t, env: scenarioEnv(), home: filepath.Join(scratch, "home")}
	if err := os.Mkdir(m.home, 0o755); err != nil {
		t.Fatal(err)
	}
	m.env["HOME"], m.env["XDG_CONFIG_HOME"] = m.home, filepath.Join(m.home, ".config")
	m.env["PATH"] = os.Getenv("PATH")

	base := filepath.Join(scratch, "base")
	m.mustGit("", "init", "-q", "-b", "main", base)
	m.mustTD(base, "init")
	m.mustTD(base, "create", "Sign in with GitHub", "--description", "Users sign in with GitHub.")
	m.mustTD(base, "create", "Accounts")
	m.mustTD(base, "create", "Dark mode")
	m.mustTD(base, "create", "Billing", "--description", "Customers pay by card.")
	m.mustTD(base, "todo", "add", "--issue", "td-qkm5oz", "--kind", "criterion", "A user can sign in")
	m.mustTD(base, "todo", "add", "--issue", "td-qkm5oz", "Step 1", "Step 2", "Step 3", "Step 4", "Step 5")
	m.mustGit(base, "commit", "-q", "-m", "base")

	n := len(matrixCommands)
	grids := map[bool][][]string{}
	for _, driver := range []bool{true, false} {
		g := make([][]string, n)
		for i := range g {
			g[i] = make([]string, n)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				dir := filepath.Join(scratch, fmt.Sprintf("%v-%d-%d", driver, i, j))
				g[i][j] = m.mergePair(base, dir, matrixCommands[i], matrixCommands[j], driver)
				g[j][i] = g[i][j]
				os.RemoveAll(dir)
			}
		}
		grids[driver] = g
	}
	got := renderMatrix(grids[true], grids[false])

	topic, err := os.ReadFile(matrixTopic)
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "```\n" + matrixHeader, "```\n"
	start := bytes.Index(topic, []byte(open))
	if start < 0 {
		t.Fatalf("%s has no code block starting %q for the matrix", matrixTopic, matrixHeader)
	}
	end := bytes.Index(topic[start+len(open):], []byte(close))
	if end < 0 {
		t.Fatalf("%s: the matrix's code block is not closed", matrixTopic)
	}
	end += start + len(open) + len(close)
	want := "```\n" + got + "```\n"
	if string(topic[start:end]) == want {
		return
	}
	if os.Getenv("TD_UPDATE_SCRIPTS") != "" {
		out := append(append(append([]byte{}, topic[:start]...), want...), topic[end:]...)
		if err := os.WriteFile(matrixTopic, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s updated", matrixTopic)
		return
	}
	t.Fatalf("the merge matrix changed; td help merging says\n%s\nthe merges give\n%s\n(TD_UPDATE_SCRIPTS=1 writes it into %s; read the diff)", topic[start:end], want, matrixTopic)
}

// matrixHeader is the first line of the matrix's code block.
const matrixHeader = "With td's merge driver"

// renderMatrix writes the two grids, one under the other, with the list
// of commands.
func renderMatrix(driver, plain [][]string) string {
	var b strings.Builder
	grid := func(title string, g [][]string) {
		b.WriteString(title + "\n")
		b.WriteString(strings.Repeat(" ", 14))
		for j := range g {
			fmt.Fprintf(&b, "%3d", j+1)
		}
		b.WriteString("\n")
		for i, row := range g {
			line := fmt.Sprintf("%2d %-11s", i+1, matrixCommands[i].name)
			for _, c := range row {
				line += "  " + c
			}
			b.WriteString(line + "\n")
		}
	}
	grid(matrixHeader+" (td init registers it):", driver)
	b.WriteString("\n")
	grid("Without it (a hosting service's merge button, a clone without td init):", plain)
	b.WriteString("\n")
	for i, c := range matrixCommands {
		fmt.Fprintf(&b, "%2d %-11s %s\n", i+1, c.name, c.desc)
	}
	return b.String()
}
