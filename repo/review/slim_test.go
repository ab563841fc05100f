package review

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tdproject/td/repo/repotest"
)

// TestSlimCheckAsWhole holds a check that keeps only the links of the
// issues it will not judge again (what it does past slimAfter files) to
// one that keeps every parse: the same report, with and without a base,
// over unchanged issues with a dangling link and a cycle, and changed ones
// with two todos in progress, a status typed by hand and a dangling link.
func TestSlimCheckAsWhole(t *testing.T) {
	g := repotest.NewGitStore(t)
	issue := func(id, status, links, body string) {
		g.Write(".todos/issues/"+id+".md", fmt.Sprintf("---\nid: %s\ntitle: Issue %s\nstatus: %s\nlinks: [%s]\n---\n%s", id, id, status, links, body))
	}
	issue("td-aaaaaa", "open", "{kind: blocked_by, to: td-bbbbbb}", "")
	issue("td-bbbbbb", "open", "{kind: blocked_by, to: td-aaaaaa}", "")
	issue("td-cccccc", "open", "{kind: relates_to, to: td-zzzzzz}", "")
	issue("td-dddddd", "open", "", "## Todos\n\n- [ ] one\n")
	// A file whose id is not its name, in a cycle through the id it states.
	g.Write(".todos/issues/td-eeeeee.md", "---\nid: td-ffffff\ntitle: Misnamed\nstatus: open\nlinks: [{kind: blocked_by, to: td-gggggg}]\n---\n")
	issue("td-gggggg", "open", "{kind: blocked_by, to: td-ffffff}", "")
	g.Commit("base")
	g.Git("branch", "base")
	issue("td-dddddd", "closed", "{kind: child_of, to: td-yyyyyy}", "## Todos\n\n- [/] one\n- [/] two\n")
	// A second file stating an unchanged issue's id: the id is judged
	// once, as the last file states it.
	g.Write(".todos/issues/td-hhhhhh.md", "---\nid: td-aaaaaa\ntitle: Twin\nstatus: open\nlinks: [{kind: blocked_by, to: td-zzzzzz}]\n---\n")
	g.Commit("a change")
	g.Reopen()

	for _, o := range []CheckOptions{{}, {Base: "base", Full: true}} {
		defer func(n int) { slimAfter = n }(slimAfter)
		reports := map[int]string{}
		for _, after := range []int{1 << 30, 0} {
			slimAfter = after
			rep, err := Check(g.S, o)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(rep, "", " ")
			reports[after] = string(b)
		}
		if reports[0] != reports[1<<30] {
			t.Errorf("%+v: kept whole:\n%s\nkept slim:\n%s", o, reports[1<<30], reports[0])
		}
		if len(reports[0]) < 400 {
			t.Errorf("%+v: too little found to compare:\n%s", o, reports[0])
		}
	}
}
