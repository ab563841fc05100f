package gitrepo

import (
	"strings"
	"testing"
)

func TestPathsHistoryOneWalkForSeveralPaths(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	r := h.r
	if got, err := r.PathsHistory([]string{"a", "b"}, 0); err != nil || got != nil {
		t.Fatalf("unborn branch: %v %v", got, err)
	}
	c1 := h.commit("both\n", map[string]string{"a": "1\n", "b": "1\n", "c": "1\n"})
	c2 := h.commit("c only\n", map[string]string{"c": "2\n"})
	c3 := h.commit("a\n", map[string]string{"a": "2\n"})
	h.git(nil, "", "checkout", "-q", "-b", "side")
	c4 := h.commit("b on a branch\n", map[string]string{"b": "2\n"})
	h.git(nil, "", "checkout", "-q", "main")
	c5 := h.commit("a deleted\n", map[string]string{"a": ""})
	m := h.merge("side")
	_ = c2

	got, err := r.PathsHistory([]string{"a", "b"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, cp := range got {
		lines = append(lines, cp.Commit.Hash[:7]+" "+strings.Join(cp.Paths, ","))
	}
	want := []string{c5[:7] + " a", c4[:7] + " b", c3[:7] + " a", c1[:7] + " a,b"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s\n(the merge %s took each side unchanged)", strings.Join(lines, "\n"), strings.Join(want, "\n"), m[:7])
	}
	// Each path's own history is what PathHistory says.
	for _, p := range []string{"a", "b"} {
		single, err := r.PathHistory(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		var fromBoth []string
		for _, cp := range got {
			if strings.Contains(","+strings.Join(cp.Paths, ",")+",", ","+p+",") {
				fromBoth = append(fromBoth, cp.Commit.Hash)
			}
		}
		var fromOne []string
		for _, pc := range single {
			fromOne = append(fromOne, pc.Commit.Hash)
		}
		if strings.Join(fromBoth, " ") != strings.Join(fromOne, " ") {
			t.Errorf("%s: PathsHistory lists %v, PathHistory %v", p, fromBoth, fromOne)
		}
	}
	if got, err := r.PathsHistory([]string{"a", "b"}, 2); err != nil || len(got) != 2 || got[1].Commit.Hash != c4 {
		t.Errorf("limit 2: %v %v", got, err)
	}
	if _, err := r.PathsHistory([]string{"../x"}, 0); err == nil {
		t.Error("a path outside the repository was accepted")
	}
}
