package markdown

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestMergeTextKeepsBothAdditions(t *testing.T) {
	base := lines("a", "", "b")
	tests := []struct {
		name         string
		ours, theirs string
		want         string
		conflict     bool
	}{
		{"two paragraphs appended: ours then theirs", lines("a", "", "b", "", "ours"), lines("a", "", "b", "", "theirs"),
			lines("a", "", "b", "", "ours", "", "theirs"), false},
		{"the same addition once", lines("a", "", "b", "", "x"), lines("a", "", "b", "", "x"), lines("a", "", "b", "", "x"), false},
		{"an addition that begins the other is taken once", lines("a", "", "b", "", "## T"), lines("a", "", "b", "", "## T", "", "- [ ] s"),
			lines("a", "", "b", "", "## T", "", "- [ ] s"), false},
		{"an addition that ends the other is taken once", lines("a", "", "b", "x"), lines("a", "", "b", "w", "x"), lines("a", "", "b", "w", "x"), false},
		{"a paragraph both added is taken once, beside each side's own", lines("a", "", "b", "", "p113", "", "p139"), lines("a", "", "b", "", "p96", "", "p113"),
			lines("a", "", "b", "", "p96", "", "p113", "", "p139"), false},
		{"paragraphs both added, in the order both hold them", lines("a", "", "b", "", "x", "", "o", "", "y"), lines("a", "", "b", "", "t", "", "x", "", "y", "", "u"),
			lines("a", "", "b", "", "t", "", "x", "", "o", "", "y", "", "u"), false},
		{"additions in the middle", lines("a", "o", "", "b"), lines("a", "t", "", "b"), lines("a", "o", "t", "", "b"), false},
		{"a changed line stays a conflict", lines("A", "", "b"), lines("a2", "", "b"),
			lines("<<<<<<< ours", "A", "=======", "a2", ">>>>>>> theirs", "", "b"), true},
		{"an addition next to a change stays a conflict", lines("a", "", "B"), lines("a", "", "b", "t"),
			lines("a", "", "<<<<<<< ours", "B", "=======", "b", "t", ">>>>>>> theirs"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, conflict := mergeText([]byte(base), []byte(tt.ours), []byte(tt.theirs))
			if string(got) != tt.want || conflict != tt.conflict {
				t.Fatalf("got (conflict %v)\n%s\nwant (conflict %v)\n%s", conflict, got, tt.conflict, tt.want)
			}
			// MergeLines, git's rule, stops on every one of them that
			// both sides changed.
			if _, c := MergeLines([]byte(base), []byte(tt.ours), []byte(tt.theirs), "ours", "theirs"); !c && tt.ours != tt.theirs {
				t.Fatalf("MergeLines merged it: the case does not show mergeText's rule")
			}
		})
	}
	// A side's last line without a line ending ends the text: the other
	// side's lines go before it.
	got, conflict := mergeText([]byte("a\n"), []byte("a\nours"), []byte("a\ntheirs\n"))
	if conflict || string(got) != "a\ntheirs\nours" {
		t.Fatalf("got %q (conflict %v)", got, conflict)
	}
}

func TestSplitPieces(t *testing.T) {
	body := "\nThe description.\n\n## Anchors\n\n- high: x\n\n## Acceptance criteria\n\n- [ ] c\n\n" +
		"## Todos\n\n- [ ] s\n\n### Backend\n- [ ] b\n\n### Frontend (from primary.subagents.ui)\n- [ ] f\n\n" +
		"## Notes\n\ntext\n\n## Notes\n\nagain\n"
	ps := splitPieces([]byte(body))
	var keys, texts []string
	for _, p := range ps {
		keys = append(keys, strings.ReplaceAll(p.key, "\x00", "|"))
		texts = append(texts, string(p.text))
	}
	wantKeys := []string{"description", "section|2|anchors", "criteria", "todos", "phase|backend", "phase|frontend (from primary.subagents.ui)", "section|2|notes", "section|2|notes|#1"}
	if !slices.Equal(keys, wantKeys) {
		t.Fatalf("keys %q\nwant %q", keys, wantKeys)
	}
	if strings.Join(texts, "") != body {
		t.Fatal("the pieces do not make up the body")
	}
	// Each piece after the description starts with the blank lines
	// before its heading.
	if texts[0] != "\nThe description.\n" || texts[2] != "\n## Acceptance criteria\n\n- [ ] c\n" || texts[4] != "\n### Backend\n- [ ] b\n" {
		t.Fatalf("pieces %q", texts)
	}
	if ps := splitPieces(nil); len(ps) != 1 || ps[0].key != descriptionKey || len(ps[0].text) != 0 {
		t.Fatalf("an empty body: %+v", ps)
	}
}

func TestMergeOrder(t *testing.T) {
	d, c, s, n := descriptionKey, criteriaKey, todosKey, "notes"
	tests := []struct {
		name    string
		o, a, b []string
		want    []string // nil: refused
	}{
		{"unchanged", []string{d, s}, []string{d, s}, []string{d, s}, []string{d, s}},
		{"one side adds", []string{d}, []string{d, s}, []string{d}, []string{d, s}},
		{"both add at one place: criteria before todos", []string{d}, []string{d, s}, []string{d, c}, []string{d, c, s}},
		{"the other way round", []string{d}, []string{d, c}, []string{d, s}, []string{d, c, s}},
		{"criteria added before an existing todos section", []string{d, s}, []string{d, c, s}, []string{d, s}, []string{d, c, s}},
		{"user sections: ours first", []string{d}, []string{d, n}, []string{d, "more"}, []string{d, n, "more"}},
		{"after a user section", []string{d, n}, []string{d, n, s}, []string{d, n, c}, []string{d, n, c, s}},
		{"criteria a person put after todos stay there", []string{d, s}, []string{d, s, c}, []string{d, s}, []string{d, s, c}},
		{"a deleted piece keeps its place for the merge to decide", []string{d, n, s}, []string{d, s}, []string{d, n, c, s}, []string{d, n, c, s}},
		{"one side reorders, the other does not move pieces", []string{d, n, s}, []string{d, s, n}, []string{d, n, s}, []string{d, s, n}},
		{"both reorder", []string{d, n, s, c}, []string{d, s, n, c}, []string{d, n, c, s}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := mergeOrder(tt.o, tt.a, tt.b, descriptionKey)
			if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
				t.Fatalf("mergeOrder = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestEnsureSections(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"empty", "", "## Acceptance criteria\n\n## Todos\n"},
		{"a description", "\nText.\n", "\nText.\n\n## Acceptance criteria\n\n## Todos\n"},
		{"todos only", "\nText.\n\n## Todos\n\n- [ ] s\n", "\nText.\n\n## Acceptance criteria\n\n## Todos\n\n- [ ] s\n"},
		{"criteria only", "\nText.\n\n## Acceptance criteria\n\n- [ ] c\n", "\nText.\n\n## Acceptance criteria\n\n- [ ] c\n\n## Todos\n"},
		{"both", "\n## Acceptance criteria\n\n## Todos\n", "\n## Acceptance criteria\n\n## Todos\n"},
		{"crlf", "\r\nText.\r\n", "\r\nText.\r\n\r\n## Acceptance criteria\r\n\r\n## Todos\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tt.body))
			added := c.EnsureSections()
			if got := string(c.Bytes()); got != tt.want || added != (tt.body != tt.want) {
				t.Fatalf("EnsureSections = %q (added %v), want %q", got, added, tt.want)
			}
		})
	}
}

func TestWithoutEmptySections(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"both empty", "\nText.\n\n## Acceptance criteria\n\n## Todos\n", "\nText.\n"},
		{"criteria empty", "\nText.\n\n## Acceptance criteria\n\n## Todos\n\n- [ ] s\n", "\nText.\n\n## Todos\n\n- [ ] s\n"},
		{"todos with a phase only", "\n## Todos\n\n### Backend\n", "\n## Todos\n\n### Backend\n"},
		{"a user section kept", "\n## Notes\n\n## Todos\n", "\n## Notes\n"},
		{"none", "\nText.\n", "\nText.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(WithoutEmptySections([]byte(tt.body))); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRelayout(t *testing.T) {
	groups := [][]string{{"id", "title"}, {"status", "implementer"}, {"labels"}}
	apart := [][]string{{"id", "title"}, {"status"}, {"implementer"}, {"labels"}}
	tests := []struct {
		name, raw, want string
		from, to        [][]string
		changed         bool
	}{
		{"td's old order", "id: x\nstatus: open\ntitle: T\nlabels: []\nimplementer: \"\"\nextra: 1\n", "id: x\ntitle: T\n\nstatus: open\nimplementer: \"\"\n\nlabels: []\nextra: 1\n",
			nil, groups, true},
		{"a missing key", "id: x\nlabels:\n  - a\nstatus: open\n", "id: x\n\nstatus: open\n\nlabels:\n  - a\n", nil, groups, true},
		{"already laid out", "id: x\ntitle: T\n\nstatus: open\nimplementer: \"\"\n\nlabels: []\n", "", nil, groups, false},
		{"a comment: a person's layout", "id: x\n# mine\nstatus: open\ntitle: T\n", "", nil, groups, false},
		{"a line comment stays with its key", "id: x\nstatus: open # now\ntitle: T\n", "id: x\ntitle: T\n\nstatus: open # now\n", nil, groups, true},
		{"from one layout in groups to another", "id: x\ntitle: T\n\nstatus: open\nimplementer: \"\"\n\nlabels: []\nextra: 1\n",
			"id: x\ntitle: T\n\nstatus: open\n\nimplementer: \"\"\n\nlabels: []\nextra: 1\n", groups, apart, true},
		{"groups with a key missing", "id: x\n\nimplementer: a\n", "id: x\n\nimplementer: a\n", groups, apart, false},
		{"not the layout it is said to have", "id: x\ntitle: T\nstatus: open\n", "", groups, apart, false},
		{"an empty line of a person's", "id: x\ntitle: T\n\n\nstatus: open\n", "", groups, apart, false},
		{"keys in another order", "title: T\nid: x\n\nstatus: open\n", "", groups, apart, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := parseFront([]byte(tt.raw), "\n", 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := fm.Relayout(tt.from, tt.to); got != tt.changed {
				t.Fatalf("Relayout = %v, want %v:\n%s", got, tt.changed, fm.raw)
			}
			want := tt.want
			if !tt.changed {
				want = tt.raw
			}
			if string(fm.raw) != want {
				t.Fatalf("got\n%s\nwant\n%s", fm.raw, want)
			}
		})
	}
}

// FuzzEnsureSections checks on any body that EnsureSections only inserts
// (every byte of the body stays, in order), keeps every todo as it was,
// and leaves both of td's sections in the body unless it reports that it
// could not add one.
func FuzzEnsureSections(f *testing.F) {
	for _, s := range []string{"", "\nText.\n", "\nText.\n\n## Todos\n\n- [ ] s\n", "\n## Acceptance criteria\n\n- [ ] c\n",
		"```\n## Todos\n", "<div>\n## Todos\n", "Text", "\r\nText.\r\n", "- [ ] a\n## Notes\n", "## Todos\n### P\n- [/] s\n  > n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c := ParseChecklist(body)
		before := c.Items()
		c.EnsureSections()
		if !slices.EqualFunc(c.Items(), before, sameItem) {
			t.Fatalf("EnsureSections changed the todos of %q: %q", body, c.body)
		}
		for _, e := range c.touched() {
			if e.del != 0 {
				t.Fatalf("EnsureSections deleted bytes of %q", body)
			}
		}
		// The body is a subsequence of the result.
		rest := c.body
		for _, b := range body {
			i := bytes.IndexByte(rest, b)
			if i < 0 {
				t.Fatalf("EnsureSections lost a byte of %q: %q", body, c.body)
			}
			rest = rest[i+1:]
		}
	})
}

// TestMergeIssueLabels: the conflict markers td places where the conflict
// is carry the labels asked for, as git's do.
func TestMergeIssueLabels(t *testing.T) {
	ours := strings.Replace(mergeBase, "title: Sign in with GitHub", "title: Sign in with GitLab", 1)
	theirs := strings.Replace(mergeBase, "title: Sign in with GitHub", "title: Sign in with Bitbucket", 1)
	got, conflicts := MergeIssue([]byte(mergeBase), []byte(ours), []byte(theirs), "HEAD", "feature")
	want := strings.Replace(mergeBase, "title: Sign in with GitHub\n",
		"<<<<<<< HEAD\ntitle: Sign in with GitLab\n=======\ntitle: Sign in with Bitbucket\n>>>>>>> feature\n", 1)
	if len(conflicts) != 1 || string(got) != want {
		t.Fatalf("conflicts %q, got\n%s", conflicts, got)
	}
}
