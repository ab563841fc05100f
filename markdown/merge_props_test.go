package markdown

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// genIssue is a small model of an issue file, for generating many files
// and random edits of them.
type genIssue struct {
	title, status string
	labels        []string
	links         []string // link targets, all child_of
	extra         [][2]string
	hour          int
	desc          []string
	criteria      []genTodo
	phases        []genPhase // the first has no heading
	trailer       []string
	crlf          bool
	// newLayout writes the file as td writes it now: frontmatter blocks
	// apart, labels as a block list, both sections from the start.
	newLayout bool
}

type genPhase struct {
	name  string
	todos []genTodo
}

type genTodo struct {
	text  string
	mark  byte
	notes []string
}

var (
	genWords  = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	genMarks  = []byte{' ', '/', 'x', '-', '!'}
	genLabels = []string{"auth", "ui", "api", "docs", "ops"}
)

func (g *genIssue) clone() *genIssue {
	c := *g
	c.labels = slices.Clone(g.labels)
	c.links = slices.Clone(g.links)
	c.extra = slices.Clone(g.extra)
	c.desc = slices.Clone(g.desc)
	c.trailer = slices.Clone(g.trailer)
	c.criteria = cloneTodos(g.criteria)
	c.phases = make([]genPhase, len(g.phases))
	for i, p := range g.phases {
		c.phases[i] = genPhase{name: p.name, todos: cloneTodos(p.todos)}
	}
	return &c
}

func cloneTodos(ts []genTodo) []genTodo {
	out := make([]genTodo, len(ts))
	for i, t := range ts {
		out[i] = genTodo{text: t.text, mark: t.mark, notes: slices.Clone(t.notes)}
	}
	return out
}

func newGenIssue(rng *rand.Rand) *genIssue {
	g := &genIssue{
		title:     "Issue " + genWords[rng.IntN(len(genWords))],
		status:    "open",
		hour:      10,
		crlf:      rng.IntN(8) == 0,
		newLayout: rng.IntN(2) == 0,
	}
	for n := rng.IntN(3); n > 0; n-- {
		g.addLabel(rng)
	}
	for n := rng.IntN(3); n > 0; n-- {
		g.desc = append(g.desc, "Line "+genWords[rng.IntN(len(genWords))])
	}
	for n := rng.IntN(3); n > 0; n-- {
		g.criteria = addGenTodo(rng, g.criteria, "crit")
	}
	g.phases = []genPhase{{}}
	for n := rng.IntN(4); n > 0; n-- {
		g.phases[0].todos = addGenTodo(rng, g.phases[0].todos, "step")
	}
	for n := rng.IntN(3); n > 0; n-- {
		g.addPhase(rng)
	}
	if rng.IntN(3) == 0 {
		g.trailer = []string{"Closing words."}
	}
	return g
}

func (g *genIssue) addLabel(rng *rand.Rand) {
	if l := genLabels[rng.IntN(len(genLabels))]; !slices.Contains(g.labels, l) {
		g.labels = append(g.labels, l)
	}
}

func (g *genIssue) addPhase(rng *rand.Rand) {
	name := "Phase " + genWords[rng.IntN(len(genWords))]
	for _, p := range g.phases {
		if p.name == name {
			return
		}
	}
	g.phases = append(g.phases, genPhase{name: name, todos: addGenTodo(rng, nil, "step")})
}

func addGenTodo(rng *rand.Rand, ts []genTodo, prefix string) []genTodo {
	text := prefix + " " + genWords[rng.IntN(len(genWords))]
	for _, t := range ts {
		if t.text == text {
			return ts
		}
	}
	return append(ts, genTodo{text: text, mark: ' '})
}

// edit makes one to three random changes.
func (g *genIssue) edit(rng *rand.Rand) *genIssue {
	e := g.clone()
	for n := 1 + rng.IntN(3); n > 0; n-- {
		all := e.todoRefs()
		switch rng.IntN(14) {
		case 0:
			e.title = "Issue " + genWords[rng.IntN(len(genWords))]
		case 1:
			e.status = []string{"open", "in_progress", "blocked", "in_review", "closed"}[rng.IntN(5)]
		case 2:
			e.addLabel(rng)
		case 3:
			if len(e.labels) > 0 {
				i := rng.IntN(len(e.labels))
				e.labels = slices.Delete(e.labels, i, i+1)
			}
		case 4:
			if to := fmt.Sprintf("td-aaaa%02d", rng.IntN(4)); !slices.Contains(e.links, to) {
				e.links = append(e.links, to)
			} else {
				e.links = slices.DeleteFunc(e.links, func(s string) bool { return s == to })
			}
		case 5:
			e.hour = 10 + rng.IntN(12)
		case 6:
			k := []string{"estimate", "sprint"}[rng.IntN(2)]
			if i := slices.IndexFunc(e.extra, func(kv [2]string) bool { return kv[0] == k }); i >= 0 {
				e.extra = slices.Delete(e.extra, i, i+1)
			} else {
				e.extra = append(e.extra, [2]string{k, fmt.Sprint(rng.IntN(9))})
			}
		case 7, 8:
			if len(all) > 0 {
				all[rng.IntN(len(all))].mark = genMarks[rng.IntN(len(genMarks))]
			}
		case 9:
			if len(all) > 0 {
				t := all[rng.IntN(len(all))]
				if len(t.notes) > 0 && rng.IntN(3) == 0 {
					i := rng.IntN(len(t.notes))
					t.notes = slices.Delete(t.notes, i, i+1)
				} else {
					t.notes = append(t.notes, "note "+genWords[rng.IntN(len(genWords))])
				}
			}
		case 10:
			if rng.IntN(3) == 0 {
				e.criteria = addGenTodo(rng, e.criteria, "crit")
			} else {
				p := &e.phases[rng.IntN(len(e.phases))]
				p.todos = addGenTodo(rng, p.todos, "step")
			}
		case 11:
			p := &e.phases[rng.IntN(len(e.phases))]
			if len(p.todos) > 0 {
				i := rng.IntN(len(p.todos))
				p.todos = slices.Delete(p.todos, i, i+1)
			}
		case 12:
			e.addPhase(rng)
		case 13:
			if len(e.desc) > 0 && rng.IntN(2) == 0 {
				e.desc[rng.IntN(len(e.desc))] += " edited"
			} else {
				e.desc = append(e.desc, "More "+genWords[rng.IntN(len(genWords))])
			}
		}
	}
	return e
}

func (g *genIssue) todoRefs() []*genTodo {
	var out []*genTodo
	for i := range g.criteria {
		out = append(out, &g.criteria[i])
	}
	for p := range g.phases {
		for i := range g.phases[p].todos {
			out = append(out, &g.phases[p].todos[i])
		}
	}
	return out
}

// render writes the file as td writes it.
func (g *genIssue) render() []byte {
	var b strings.Builder
	gap := ""
	if g.newLayout {
		gap = "\n"
	}
	b.WriteString("---\nid: td-gen001\ntitle: " + g.title + "\n" + gap + "status: " + g.status + "\n" + gap)
	switch {
	case len(g.labels) > 0 && g.newLayout:
		b.WriteString("labels:\n  - " + strings.Join(g.labels, "\n  - ") + "\n")
	default:
		b.WriteString("labels: [" + strings.Join(g.labels, ", ") + "]\n")
	}
	b.WriteString(gap)
	if len(g.links) == 0 {
		b.WriteString("links: []\n")
	} else {
		b.WriteString("links:\n")
		for _, l := range g.links {
			b.WriteString("  - {kind: child_of, to: " + l + "}\n")
		}
	}
	fmt.Fprintf(&b, "created_at: 2026-11-21T10:00:00Z\nupdated_at: 2026-11-21T%02d:00:00Z\n", g.hour)
	for _, kv := range g.extra {
		b.WriteString(kv[0] + ": " + kv[1] + "\n")
	}
	b.WriteString("---\n")
	if len(g.desc) > 0 {
		b.WriteString("\n" + strings.Join(g.desc, "\n") + "\n")
	}
	writeTodos := func(ts []genTodo) {
		for _, t := range ts {
			fmt.Fprintf(&b, "- [%c] %s\n", t.mark, t.text)
			for i, n := range t.notes {
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString("  > " + n + "\n")
			}
		}
	}
	if len(g.criteria) > 0 || g.newLayout {
		b.WriteString("\n## Acceptance criteria\n")
		if len(g.criteria) > 0 {
			b.WriteString("\n")
		}
		writeTodos(g.criteria)
	}
	steps := g.newLayout
	for _, p := range g.phases {
		steps = steps || len(p.todos) > 0 || p.name != ""
	}
	if steps {
		b.WriteString("\n## Todos\n")
		for i, p := range g.phases {
			if i == 0 && len(p.todos) == 0 {
				continue
			}
			b.WriteString("\n")
			if p.name != "" {
				b.WriteString("### " + p.name + "\n")
			}
			writeTodos(p.todos)
		}
	}
	if len(g.trailer) > 0 {
		b.WriteString("\n## Notes\n\n" + strings.Join(g.trailer, "\n") + "\n")
	}
	out := b.String()
	if g.crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return []byte(out)
}

// rawEdit changes random lines of a rendered file, for the cases the model
// cannot express (and files that no longer parse).
func rawEdit(rng *rand.Rand, data []byte) []byte {
	ls := strings.SplitAfter(string(data), "\n")
	out := randomEdit(rng, ls)
	return []byte(strings.Join(out, ""))
}

func TestMergeIssueProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	n := 1500
	if testing.Short() {
		n = 200
	}
	clean := 0
	for it := 0; it < n; it++ {
		g := newGenIssue(rng)
		ga, gb := g.edit(rng), g.edit(rng)
		if rng.IntN(4) == 0 {
			gb = ga.edit(rng) // overlapping edits
		}
		O, A, B := g.render(), ga.render(), gb.render()
		if rng.IntN(10) == 0 {
			A = rawEdit(rng, A)
		}
		if rng.IntN(10) == 0 {
			B = rawEdit(rng, B)
		}
		if checkMergeIssueProperties(t, O, A, B) {
			clean++
		}
	}
	// The generator must exercise the clean path, not only conflicts.
	if clean < n/3 {
		t.Fatalf("only %d of %d merges were clean", clean, n)
	}
}

// checkMergeIssueProperties checks the merge laws on one triple and reports
// whether its merge was clean.
func checkMergeIssueProperties(t *testing.T, O, A, B []byte) bool {
	t.Helper()
	for _, c := range []struct {
		name    string
		x, y, w []byte
	}{{"merge(O,A,A)", A, A, A}, {"merge(O,O,B)", O, B, B}, {"merge(O,A,O)", A, O, A}} {
		if got, conflicts := MergeIssue(O, c.x, c.y, "ours", "theirs"); conflicts != nil || !bytes.Equal(got, c.w) {
			t.Fatalf("%s is not the side (conflicts %q)\nO=%q\nside=%q\ngot=%q", c.name, conflicts, O, c.w, got)
		}
		// The structural merge itself, without the shortcuts for equal
		// inputs, must obey the same law.
		if got, conflicts, parsed := mergeIssue(O, c.x, c.y); parsed && (conflicts != nil || !bytes.Equal(got, c.w)) {
			t.Fatalf("structural %s is not the side (conflicts %q)\nO=%q\nside=%q\ngot=%q", c.name, conflicts, O, c.w, got)
		}
	}
	ab, c1 := MergeIssue(O, A, B, "ours", "theirs")
	ba, c2 := MergeIssue(O, B, A, "ours", "theirs")
	if (c1 == nil) != (c2 == nil) {
		t.Fatalf("conflict is not symmetric: %q vs %q\nO=%q\nA=%q\nB=%q", c1, c2, O, A, B)
	}
	if c1 != nil {
		return false
	}
	if mergeContent(ab) != mergeContent(ba) {
		t.Fatalf("clean merge is not symmetric\nO=%q\nA=%q\nB=%q\nab=%q\nba=%q", O, A, B, ab, ba)
	}
	if _, err := Parse(A); err == nil {
		if _, err := Parse(B); err == nil {
			if _, err := Parse(O); err == nil {
				if _, err := Parse(ab); err != nil {
					t.Fatalf("a clean merge of readable files does not parse: %v\n%q", err, ab)
				}
			}
		}
	}
	return true
}

func FuzzMergeIssue(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 8; i++ {
		g := newGenIssue(rng)
		f.Add(g.render(), g.edit(rng).render(), g.edit(rng).render())
	}
	f.Fuzz(func(t *testing.T, O, A, B []byte) {
		checkMergeIssueProperties(t, O, A, B)
	})
}
