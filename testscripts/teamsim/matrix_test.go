package teamsim

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// matrixCommand is one td command of the pairwise merge matrix; side is
// "a" or "b", so that the same command on two branches writes different
// values where it takes one.
type matrixCommand struct {
	name string
	args func(side string) [][]string
}

// matrixCommands are the commands of the pairwise matrix, on the issue X
// (a description, criteria c1 to c3, steps s1 to s5), the issues Y1 and Y2
// (link targets) and Z (a description only).
var matrixCommands = []matrixCommand{
	{"rename", func(s string) [][]string { return [][]string{{"edit", "X", "--title", "Title " + s}} }},
	{"priority", func(s string) [][]string {
		return [][]string{{"edit", "X", "-p", map[string]string{"a": "P1", "b": "P3"}[s]}}
	}},
	{"label", func(s string) [][]string { return [][]string{{"edit", "X", "--add-label", "label-" + s}} }},
	{"link", func(s string) [][]string {
		return [][]string{{"link", "X", "relates_to", map[string]string{"a": "Y1", "b": "Y2"}[s]}}
	}},
	{"start", func(string) [][]string { return [][]string{{"start", "X"}} }},
	{"send", func(string) [][]string { return [][]string{{"send", "X", "-q"}} }},
	{"close", func(s string) [][]string {
		return [][]string{{"close", "X", "--resolution", "wontfix", "--reason", "why " + s, "--yes"}}
	}},
	{"append", func(s string) [][]string { return [][]string{{"edit", "X", "--append", "Paragraph " + s}} }},
	{"comment", func(s string) [][]string { return [][]string{{"comment", "X", "comment " + s}} }},
	{"add step", func(s string) [][]string {
		return [][]string{{"todo", "add", "--issue", "X", "--kind", "step", "step " + s}}
	}},
	{"add criterion", func(s string) [][]string {
		return [][]string{{"todo", "add", "--issue", "X", "--kind", "criterion", "criterion " + s}}
	}},
	{"done (far apart)", func(s string) [][]string {
		return [][]string{{"todo", "done", "--issue", "X", map[string]string{"a": "s1", "b": "s5"}[s]}}
	}},
	{"done (adjacent)", func(s string) [][]string {
		return [][]string{{"todo", "done", "--issue", "X", map[string]string{"a": "s2", "b": "s3"}[s]}}
	}},
	{"note", func(s string) [][]string {
		return [][]string{{"todo", "note", "--issue", "X", map[string]string{"a": "s1", "b": "s5"}[s], "note " + s}}
	}},
	{"Z first criterion", func(s string) [][]string {
		return [][]string{{"todo", "add", "--issue", "Z", "--kind", "criterion", "criterion " + s}}
	}},
	{"Z first steps", func(s string) [][]string {
		return [][]string{{"todo", "set", "--issue", "Z", "step one " + s, "step two " + s}}
	}},
	{"Z append", func(s string) [][]string { return [][]string{{"edit", "Z", "--append", "Paragraph " + s}} }},
}

// TestMergeMatrix prints, for every pair of commands run on two branches
// from one base, whether git merges the branches cleanly without td's
// driver (a forge's button) and with it. It runs only with
// -teamsim.matrix; the published matrix belongs in td help merging.
func TestMergeMatrix(t *testing.T) {
	if !*flagMatrix {
		t.Skip("prints the pairwise merge matrix with -teamsim.matrix")
	}
	bin := tdBin(t)
	root := t.TempDir()
	if d := scratchDir(); d != "" {
		var err error
		if root, err = os.MkdirTemp(d, "teamsim-matrix-"); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
	}
	w := newWorld(1, root, bin, options{})
	defer func() {
		if r := recover(); r != nil {
			for _, l := range w.log {
				t.Log(l)
			}
			t.Fatalf("%v\n%s", r, debug.Stack())
		}
	}()
	w.makeHomes()
	dir := filepath.Join(root, "repo")
	w.git(root, w.alice, "init", "-q", "-b", "main", dir)
	p := &place{name: "matrix", dir: dir, who: w.alice, clone: &clone{name: "matrix", dir: dir, owner: w.alice, driver: true}, startedHere: map[string]bool{}}
	w.mustTD(p, "init")
	ids := map[string]string{}
	for _, name := range []string{"X", "Y1", "Y2", "Z"} {
		r := w.mustTD(p, "create", "Issue "+name, "-d", "The description of "+name+".")
		ids[name] = createdRE.FindStringSubmatch(r.out)[1]
	}
	for _, c := range []string{"c1", "c2", "c3"} {
		w.mustTD(p, "todo", "add", "--issue", ids["X"], "--kind", "criterion", c)
	}
	w.mustTD(p, "todo", "set", "--issue", ids["X"], "s1", "s2", "s3", "s4", "s5")
	w.mustTD(p, "todo", "start", "--issue", ids["X"], "s4")
	w.git(dir, w.alice, "commit", "-q", "-m", "base")
	driver := strings.TrimSpace(w.git(dir, w.alice, "config", "merge.td.driver"))
	driverName := strings.TrimSpace(w.git(dir, w.alice, "config", "merge.td.name"))

	run := func(c matrixCommand, side string) {
		for _, args := range c.args(side) {
			for i, a := range args {
				if id, ok := ids[a]; ok {
					args[i] = id
				}
			}
			if r := w.td(p, args...); !r.ok() {
				t.Fatalf("%s on %s: td %s: %s", c.name, side, shellJoin(args), r.text())
			}
		}
		w.git(dir, w.alice, "add", "-A", ".todos")
		w.git(dir, w.alice, "commit", "-q", "--allow-empty", "-m", c.name+" "+side)
	}
	merge := func(withDriver bool) bool {
		if !withDriver {
			w.git(dir, w.alice, "config", "--remove-section", "merge.td")
		}
		w.git(dir, w.alice, "checkout", "-q", "-B", "m", "a")
		r := w.tryGit(dir, w.alice, "", "merge", "-q", "--no-edit", "b")
		if !r.ok() {
			w.tryGit(dir, w.alice, "", "merge", "--abort")
		}
		w.git(dir, w.alice, "reset", "-q", "--hard")
		if !withDriver {
			w.git(dir, w.alice, "config", "merge.td.name", driverName)
			w.git(dir, w.alice, "config", "merge.td.driver", driver)
		}
		return r.ok()
	}
	n := len(matrixCommands)
	plain := make([][]bool, n)
	withDriver := make([][]bool, n)
	for i := range matrixCommands {
		plain[i], withDriver[i] = make([]bool, n), make([]bool, n)
	}
	for i := range matrixCommands {
		for j := i; j < n; j++ {
			// Each pair starts from nothing held: claims live outside
			// the branches.
			for _, ref := range splitLines(w.git(dir, w.alice, "for-each-ref", "--format=%(refname)", "refs/td/")) {
				w.git(dir, w.alice, "update-ref", "-d", ref)
			}
			w.git(dir, w.alice, "checkout", "-q", "-B", "a", "main")
			run(matrixCommands[i], "a")
			w.git(dir, w.alice, "checkout", "-q", "-B", "b", "main")
			run(matrixCommands[j], "b")
			plain[i][j] = merge(false)
			withDriver[i][j] = merge(true)
			plain[j][i], withDriver[j][i] = plain[i][j], withDriver[i][j]
			w.git(dir, w.alice, "checkout", "-q", "main")
		}
	}
	t.Log("\n" + formatMatrix("without td's driver (a forge's merge button, a clone that never ran td init)", plain) +
		"\n" + formatMatrix("with td's driver", withDriver))
}

// formatMatrix prints a symmetric clean/conflict matrix: rows named,
// columns numbered as the rows.
func formatMatrix(title string, m [][]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: . merges cleanly, X conflicts\n\n", title)
	fmt.Fprintf(&b, "%-22s", "")
	for j := range matrixCommands {
		fmt.Fprintf(&b, "%3d", j+1)
	}
	b.WriteString("\n")
	for i, c := range matrixCommands {
		fmt.Fprintf(&b, "%2d %-19s", i+1, c.name)
		for j := range matrixCommands {
			cell := "."
			if !m[i][j] {
				cell = "X"
			}
			fmt.Fprintf(&b, "%3s", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}
