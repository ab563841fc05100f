package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// checkChecklist checks what must hold of any parsed checklist: items in
// order inside the body on whole lines, line numbers, markers, note ranges
// and phases where the item ranges say.
func checkChecklist(t *testing.T, c *Checklist) {
	t.Helper()
	body := c.body
	prev := 0
	for i, it := range c.items {
		m := c.marks[i]
		if it.Start < prev || it.Start >= it.End || it.End > len(body) {
			t.Fatalf("item %d has range [%d,%d) after %d in a body of %d bytes", i, it.Start, it.End, prev, len(body))
		}
		if it.Start > 0 && body[it.Start-1] != '\n' {
			t.Fatalf("item %d does not start a line", i)
		}
		if it.End < len(body) && body[it.End-1] != '\n' {
			t.Fatalf("item %d does not end a line", i)
		}
		if want := lineOf(body, it.Start); it.Line != want {
			t.Fatalf("item %d has line %d, want %d", i, it.Line, want)
		}
		if m.marker <= it.Start || m.marker >= m.headEnd || m.headEnd > it.End || statusOf(body[m.marker]) != it.Status {
			t.Fatalf("item %d: marker at %d, head end %d, status %q, in [%d,%d)", i, m.marker, m.headEnd, it.Status, it.Start, it.End)
		}
		if it.Kind != domain.KindStep && it.Kind != domain.KindCriterion {
			t.Fatalf("item %d has kind %q", i, it.Kind)
		}
		if strings.Contains(it.Text, "\n") {
			t.Fatalf("item %d has a line break in its text %q", i, it.Text)
		}
		if len(m.notes) != len(it.Notes) {
			t.Fatalf("item %d has %d note ranges for %d notes", i, len(m.notes), len(it.Notes))
		}
		at := m.headEnd
		for k, q := range m.notes {
			if q[0] < at || q[0] >= q[1] || q[1] > it.End {
				t.Fatalf("item %d note %d has range %v outside [%d,%d)", i, k, q, at, it.End)
			}
			at = q[1]
		}
		prev = it.End
	}
	for i, p := range c.phases {
		if want := lineOf(body, p.start); p.Line != want {
			t.Fatalf("phase %d has line %d, want %d", i, p.Line, want)
		}
	}
}

// FuzzChecklistParse checks that any body parses without panicking, keeps
// its bytes, yields well-formed items, agrees with Headings, renders, finds
// each uniquely named item by its text, and has an idempotent canonical
// form that says the same thing.
func FuzzChecklistParse(f *testing.F) {
	f.Add([]byte(specBody))
	f.Fuzz(checkChecklistParse)
}

// checkChecklistParse runs the parse properties on one body.
func checkChecklistParse(t *testing.T, body []byte) {
	t.Helper()
	c := ParseChecklist(body)
	if !bytes.Equal(c.Bytes(), body) {
		t.Fatalf("Bytes() = %q, want the input", c.Bytes())
	}
	checkChecklist(t, c)
	_ = c.Render()
	for i, it := range c.items {
		if it.Text == "" || slices.IndexFunc(c.items, func(o Item) bool { return o.Text == it.Text }) != i ||
			slices.IndexFunc(c.items[i+1:], func(o Item) bool { return o.Text == it.Text }) >= 0 {
			continue
		}
		if j, err := c.Find(it.Text, Filter{}); err != nil || j != i {
			t.Fatalf("Find(%q) = %d, %v; want %d", it.Text, j, err, i)
		}
	}
	canon := c.Canonical()
	cc := ParseChecklist(canon)
	if !c.sameShape(cc) {
		t.Fatalf("Canonical changed what the list says:\n%q\nbecame\n%q", body, canon)
	}
	if again := cc.Canonical(); !bytes.Equal(again, canon) {
		t.Fatalf("Canonical is not idempotent:\n%q\nthen\n%q", canon, again)
	}
}

// FuzzChecklistEdit applies one edit chosen by op to any body and checks
// that it either refuses and changes nothing or changes only the bytes it
// owns: the marker bytes for SetStatus and Normalize, one insertion after
// the item for AddNote, one insertion for Add, the Todos section's content
// for SetSteps. The result must parse to the items the checklist reports.
func FuzzChecklistEdit(f *testing.F) {
	f.Add([]byte(specBody), byte(0), uint(3), "a note")
	f.Fuzz(checkChecklistEdit)
}

// checkChecklistEdit applies the edit op chooses to body and checks its properties.
func checkChecklistEdit(t *testing.T, body []byte, op byte, idx uint, txt string) {
	t.Helper()
	c := ParseChecklist(body)
	before := c.Items()
	marks := slices.Clone(c.marks)
	todos := c.sections[secTodos]
	pick := func() int { return int(idx % uint(len(before))) }
	var err error
	var check func()
	switch op % 5 {
	case 0:
		if len(before) == 0 {
			return
		}
		statuses := []domain.TodoStatus{domain.TodoPending, domain.TodoInProgress, domain.TodoCompleted, domain.TodoAbandoned, domain.TodoBlocked}
		i, status := pick(), statuses[int(op/5)%len(statuses)]
		err = c.SetStatus(i, status)
		check = func() {
			if c.items[i].Status != status {
				t.Fatalf("item %d is %s after SetStatus(%s)", i, c.items[i].Status, status)
			}
			onlyMarkers(t, c, marks)
		}
	case 1:
		if len(before) == 0 {
			return
		}
		i := pick()
		err = c.AddNote(i, txt)
		check = func() {
			if len(c.items[i].Notes) != len(before[i].Notes)+1 {
				t.Fatalf("item %d has %d notes after AddNote, had %d", i, len(c.items[i].Notes), len(before[i].Notes))
			}
			oneEdit(t, c, before[i].End, 0)
		}
	case 2:
		kind, phase := domain.KindStep, []string{"", "Backend", "New phase", ""}[idx%4]
		if op/5%2 == 1 {
			kind, phase = domain.KindCriterion, ""
		} else if idx%4 == 3 && len(c.phases) > 0 {
			phase = c.phases[0].Name
		}
		texts := strings.Split(txt, "|")
		err = c.Add(kind, phase, "", texts)
		check = func() {
			if len(c.items) != len(before)+len(texts) {
				t.Fatalf("Add of %d texts went from %d to %d items", len(texts), len(before), len(c.items))
			}
			oneEdit(t, c, -1, 0)
			if p := c.touched()[0].off; slices.ContainsFunc(before, func(it Item) bool { return it.Start < p && p < it.End }) {
				t.Fatalf("Add inserted at %d, inside an item", p)
			}
		}
	case 3:
		texts := strings.Split(txt, "|")
		half := len(texts) / 2
		err = c.SetSteps([]PhaseItems{{Texts: texts[:half]}, {Name: "P", Origin: "primary.ui", Texts: texts[half:]}})
		check = func() {
			var crit []Item
			for _, it := range before {
				if it.Kind == domain.KindCriterion {
					crit = append(crit, it)
				}
			}
			got := slices.DeleteFunc(c.Items(), func(it Item) bool { return it.Kind != domain.KindCriterion })
			if !slices.EqualFunc(got, crit, sameItem) {
				t.Fatalf("SetSteps changed the criteria")
			}
			if todos.found {
				oneEdit(t, c, todos.headEnd, todos.end-todos.headEnd)
			} else {
				oneEdit(t, c, len(body), 0)
			}
		}
	case 4:
		c.Normalize()
		check = func() {
			active, pending := 0, false
			for _, it := range c.items {
				if it.Status == domain.TodoInProgress {
					active++
				}
				pending = pending || (it.Kind == domain.KindStep && it.Status == domain.TodoPending)
			}
			if active > 1 || (active == 0 && pending) {
				t.Fatalf("after Normalize %d items are in progress (a pending step: %v)", active, pending)
			}
			onlyMarkers(t, c, marks)
		}
	}
	if err != nil {
		var ae *AddressError
		if errors.As(err, &ae) {
			t.Fatalf("an edit returned an address error: %v", err)
		}
		if !bytes.Equal(c.body, body) || len(c.touched()) != 0 {
			t.Fatalf("refused edit (%v) changed the body to %q", err, c.body)
		}
		return
	}
	if (op%5 == 0 || op%5 == 1) && len(c.items) != len(before) {
		t.Fatalf("edit %d changed the item count from %d to %d", op%5, len(before), len(c.items))
	}
	replayed := body
	for _, e := range c.touched() {
		replayed = slices.Concat(replayed[:e.off:e.off], []byte(e.ins), replayed[e.off+e.del:])
	}
	if !bytes.Equal(replayed, c.body) {
		t.Fatalf("replaying the recorded edits gives\n%q\nbut the body is\n%q", replayed, c.body)
	}
	fresh := ParseChecklist(c.body)
	if !slices.EqualFunc(fresh.items, c.items, func(a, b Item) bool {
		return sameItem(a, b) && a.Start == b.Start && a.End == b.End && a.Line == b.Line
	}) {
		t.Fatalf("items after the edit differ from a fresh parse of\n%q", c.body)
	}
	checkChecklist(t, fresh)
	check()
}

// onlyMarkers checks that every recorded edit rewrote one marker byte of
// an item as it was before the edits.
func onlyMarkers(t *testing.T, c *Checklist, before []itemMarks) {
	t.Helper()
	for _, e := range c.touched() {
		if e.del != 1 || len(e.ins) != 1 || statusOf(e.ins[0]) == "" ||
			!slices.ContainsFunc(before, func(m itemMarks) bool { return m.marker == e.off }) {
			t.Fatalf("edit %+v is not a marker rewrite", e)
		}
	}
}

// oneEdit checks that the body changed by exactly one recorded edit that
// deletes del bytes at off (any offset when off is -1).
func oneEdit(t *testing.T, c *Checklist, off, del int) {
	t.Helper()
	log := c.touched()
	if len(log) != 1 || log[0].del != del || (off >= 0 && log[0].off != off) {
		t.Fatalf("edits %+v, want one deleting %d bytes at %d", log, del, off)
	}
}

// TestChecklistProperties runs the fuzz properties on bodies assembled from
// fragments of markdown that matter to the grammar (items, notes, lazy
// lines, fences, HTML, headings, quotes, tables, blank lines), which random
// byte mutation rarely puts together.
func TestChecklistProperties(t *testing.T) {
	fragments := []string{
		"## Todos", "## Acceptance criteria", "### Backend", "### UI (from primary.ui)", "#### Detail", "# Top", "## Notes",
		"Todos\n-----", "Acceptance criteria\n===",
		"- [ ] a", "* [x] b", "1. [/] c", "2) [-] d", "  - [!] e", "-\t[X] f", "+ [ ]", "- [x]foo", "- plain", "-", "- [ ] Tâche ✓",
		"  continued", "lazy text", "  > note", "  >", "> quoted", "> - [ ] in a quote", "  - nested", "    - [ ] nested item", "   > odd note",
		"", "", "", "   ",
		"```", "~~~", "  ```", "    indented code",
		"<div>", "</div>", "<!--", "-->",
		"| a | b |", "|---|---|", "---", "***", "[ref]: /url", "Text paragraph.",
	}
	texts := []string{"new todo", "a", "A", "two|three", "", "x\ny", "note\n\nmulti", "Tâche ✓", "b|b", "  spaced  "}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 50
	}
	for d := 0; d < n; d++ {
		parts := make([]string, 3+rng.IntN(20))
		for i := range parts {
			parts[i] = fragments[rng.IntN(len(fragments))]
		}
		eol := "\n"
		if rng.IntN(4) == 0 {
			eol = "\r\n"
		}
		body := strings.ReplaceAll(strings.Join(parts, "\n"), "\n", eol)
		if rng.IntN(3) > 0 {
			body += eol
		}
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			checkChecklistParse(t, []byte(body))
			for op := byte(0); op < 10; op++ {
				checkChecklistEdit(t, []byte(body), op, uint(rng.IntN(8)), texts[rng.IntN(len(texts))])
			}
		})
	}
}
