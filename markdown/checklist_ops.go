package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// PhaseItems is one phase of a new step list for SetSteps: a "###" heading
// (none when Name and Origin are empty) and the texts of its steps.
type PhaseItems struct {
	// Name is the phase heading, "" for the steps before the first phase.
	Name string
	// Origin is the agent path the phase came from, written as a
	// "(from <path>)" suffix; "" for none.
	Origin domain.AgentPath
	// Texts are the steps, in order.
	Texts []string
}

// Fix is one status change Normalize made to restore the invariants.
type Fix struct {
	// Index is the item's index in Items.
	Index int
	// Text is the item's text.
	Text string
	// From and To are the statuses before and after.
	From, To domain.TodoStatus
}

// DuplicateError refuses a todo whose text an item of the issue already
// has, ignoring case and runs of white space.
type DuplicateError struct {
	// Text is the refused text.
	Text string
	// Existing is the text it duplicates.
	Existing string
}

// Error names the clash and how to resolve it.
func (e *DuplicateError) Error() string {
	if e.Text == e.Existing {
		return fmt.Sprintf("the todo %q is already on the list; each todo needs its own text", e.Text)
	}
	return fmt.Sprintf("the todo %q duplicates %q; each todo needs its own text", e.Text, e.Existing)
}

// SetStatus changes the status of item i by rewriting its marker
// character. Completed is written as 'x'; an item already completed keeps
// its 'X'.
func (c *Checklist) SetStatus(i int, status domain.TodoStatus) error {
	if err := c.checkIndex(i); err != nil {
		return err
	}
	mark := markerOf(status)
	if mark == 0 {
		return fmt.Errorf("unknown todo status %q; use pending, in_progress, completed, abandoned or blocked", status)
	}
	if c.items[i].Status != status {
		c.setMarkers([]int{i}, []domain.TodoStatus{status})
	}
	return nil
}

// setMarkers gives items idx (ascending) the statuses to by rewriting their
// marker characters. A marker sits between brackets in the middle of a
// paragraph line, where no character can change the block structure, so
// the items are updated in place instead of parsing the body again.
func (c *Checklist) setMarkers(idx []int, to []domain.TodoStatus) {
	body := bytes.Clone(c.body)
	for k := len(idx) - 1; k >= 0; k-- {
		i, off := idx[k], c.marks[idx[k]].marker
		body[off] = markerOf(to[k])
		c.items[i].Status = to[k]
		c.log = append(c.log, edit{off: off, del: 1, ins: string(body[off])})
	}
	c.body = body
}

// AddNote appends a note to item i: a block quote after the item's last
// line, indented to the item's content column, one "> " line per line of
// text. Existing notes are never edited.
func (c *Checklist) AddNote(i int, text string) error {
	if err := c.checkIndex(i); err != nil {
		return err
	}
	note := cleanNote(text)
	if note == "" {
		return errors.New("the note is empty; say what was learned or why the todo waits")
	}
	it := c.items[i]
	var b strings.Builder
	writeNote(&b, note, c.marks[i].column, c.eol)
	want := it
	want.Notes = append(slices.Clone(it.Notes), note)
	verify := func(t *Checklist) bool {
		return len(t.items) == len(c.items) && c.sameExcept(t, i, want)
	}
	if !c.insert(it.End, "", b.String(), "", verify) {
		return fmt.Errorf("cannot add a note to %q: the markdown of the todo at line %d would swallow it (an unclosed code or HTML block?); fix it by hand", it.Text, it.Line)
	}
	return nil
}

// RemoveNotes removes the notes of item i for which drop returns true,
// with the blank lines that separated each from what came before it, and
// returns how many it removed. Every other byte of the body is kept. It
// refuses, changing nothing, when removing a note would change anything
// else the list says (the item's text, its other notes, another item).
func (c *Checklist) RemoveNotes(i int, drop func(note string) bool) (int, error) {
	if err := c.checkIndex(i); err != nil {
		return 0, err
	}
	var gone []int
	for k, n := range c.items[i].Notes {
		if drop(n) {
			gone = append(gone, k)
		}
	}
	// From the last, so the offsets of the earlier notes hold; on a copy,
	// so that a refusal leaves the list as it was.
	w := c.trial(nil)
	var edits []edit
	for g := len(gone) - 1; g >= 0; g-- {
		k := gone[g]
		it, q := w.items[i], w.marks[i].notes[k]
		want := it
		want.Notes = slices.Delete(slices.Clone(it.Notes), k, k+1)
		var next *Checklist
		// With the blank lines that separate it from what comes before
		// it (those after it, for a note right under the item's text),
		// else alone.
		after := q[1]
		for after < it.End && isBlank(w.body[after:lineEndAt(w.body, after)]) {
			after = lineEndAt(w.body, after)
		}
		spans := [][2]int{{q[0], after}, {q[0], q[1]}}
		if before := trimBlankTail(w.body, w.marks[i].headEnd, q[0]); before < q[0] {
			spans[0] = [2]int{before, q[1]}
		}
		for _, span := range spans {
			e := edit{off: span[0], del: span[1] - span[0]}
			if t := w.trial([]edit{e}); w.sameExcept(t, i, want) {
				next = t
				edits = append(edits, e)
				break
			}
		}
		if next == nil {
			return 0, fmt.Errorf("cannot remove the note %q from %q: the markdown around it would change what the todo says; remove it by hand", it.Notes[k], it.Text)
		}
		w = next
	}
	if len(edits) > 0 {
		log := append(slices.Clone(c.log), edits...)
		*c = *w
		c.log = log
	}
	return len(gone), nil
}

// Add appends new pending items, one "- [ ] text" line each, after the
// last item of the criteria section (kind criterion) or of the named
// phase (kind step; "" for the steps before the first phase). A missing
// phase is created at the end of the Todos section, as "### phase" or
// "### phase (from origin)"; a missing section is created too: the
// criteria before "## Todos" if there is one, else at the end. Phase names
// compare ignoring case and runs of white space. With an origin, the phase
// must have that origin; without one, a phase of that name without one is
// taken first, else any phase of that name. Add refuses, changing nothing, an empty text, a text with a
// line break, and a duplicate of any item of the issue or of an earlier
// text.
func (c *Checklist) Add(kind domain.TodoKind, phase string, origin domain.AgentPath, texts []string) error {
	if sectionOf(kind) < 0 {
		return fmt.Errorf("unknown todo kind %q; use %s or %s", kind, domain.KindStep, domain.KindCriterion)
	}
	phase, origin = strings.TrimSpace(phase), domain.AgentPath(strings.TrimSpace(string(origin)))
	if kind == domain.KindCriterion && (phase != "" || origin != "") {
		return errors.New("acceptance criteria have no phases; add them without one")
	}
	if err := checkPhase(phase, origin); err != nil {
		return err
	}
	if len(texts) == 0 {
		return errors.New("nothing to add: give the text of at least one todo")
	}
	clean, err := checkTexts(texts, c.items)
	if err != nil {
		return err
	}
	eol := c.eol
	var lines strings.Builder
	for _, t := range clean {
		writeItem(&lines, ' ', t, eol)
	}
	block := lines.String()
	p, pre, post := 0, "", ""
	wantPhase, wantOrigin := "", domain.AgentPath("")
	todos := c.sections[secTodos]
	switch {
	case kind == domain.KindCriterion && c.sections[secCriteria].found:
		s := c.sections[secCriteria]
		if last := c.lastItem(func(j int) bool { return c.items[j].Kind == domain.KindCriterion }); last >= 0 {
			p = c.items[last].End
		} else {
			p, pre, post = c.openRegion(s.headEnd, s.end, true)
		}
	case kind == domain.KindCriterion && todos.found:
		p = todos.start
		block = "## " + criteriaTitle + eol + eol + block
		if p > 0 && trimBlankTail(c.body, 0, p) == p {
			pre = eol
		}
		post = eol
	case kind == domain.KindCriterion:
		block = "## " + criteriaTitle + eol + eol + block
		p, pre = c.atEnd()
	case !todos.found:
		if phase != "" {
			block = "### " + phaseHeading(phase, origin) + eol + block
			wantPhase, wantOrigin = phase, origin
		}
		block = "## " + todosTitle + eol + eol + block
		p, pre = c.atEnd()
	case phase == "":
		if last := c.lastItem(func(j int) bool { return c.items[j].Kind == domain.KindStep && c.marks[j].phase < 0 }); last >= 0 {
			p = c.items[last].End
		} else {
			hi := todos.end
			if len(c.phases) > 0 {
				hi = c.phases[0].start
			}
			p, pre, post = c.openRegion(todos.headEnd, hi, true)
		}
	default:
		if k := c.findPhase(phase, origin); k >= 0 {
			ph := c.phases[k]
			wantPhase, wantOrigin = ph.Name, ph.Origin
			if last := c.lastItem(func(j int) bool { return c.items[j].Kind == domain.KindStep && c.marks[j].phase == k }); last >= 0 {
				p = c.items[last].End
			} else {
				p, pre, post = c.openRegion(ph.headEnd, ph.end, false)
			}
		} else {
			wantPhase, wantOrigin = phase, origin
			block = "### " + phaseHeading(phase, origin) + eol + block
			p, pre, post = c.openRegion(todos.headEnd, todos.end, true)
		}
	}
	at := 0
	for at < len(c.items) && c.items[at].Start < p {
		at++
	}
	verify := func(t *Checklist) bool {
		if len(t.items) != len(c.items)+len(clean) {
			return false
		}
		for j, it := range c.items {
			k := j
			if j >= at {
				k += len(clean)
			}
			if !sameItem(t.items[k], it) {
				return false
			}
		}
		for j, text := range clean {
			want := Item{Todo: domain.Todo{Kind: kind, Status: domain.TodoPending, Text: text, Phase: wantPhase, Origin: wantOrigin}}
			if !sameItem(t.items[at+j], want) {
				return false
			}
		}
		return true
	}
	if !c.insert(p, pre, block, post, verify) {
		if err := c.pastLimits([]edit{{off: p, ins: c.terminator(p) + pre + block + post}}); err != nil {
			return fmt.Errorf("cannot add %q: %s", clean[0], err.Msg)
		}
		return fmt.Errorf("cannot add %q at line %d: the markdown around it would change what it says (an unclosed code or HTML block?); fix it by hand", clean[0], lineOf(c.body, p))
	}
	return nil
}

// pastLimits returns the limit (see CheckBody) the body with edits
// applied would pass, nil if none: td never writes a body it would refuse
// to read back.
func (c *Checklist) pastLimits(edits []edit) *Error {
	size := len(c.body)
	for _, e := range edits {
		size += len(e.ins) - e.del
	}
	out := make([]byte, 0, size)
	pos := 0
	for _, e := range edits {
		out = append(out, c.body[pos:e.off]...)
		out = append(out, e.ins...)
		pos = e.off + e.del
	}
	out = append(out, c.body[pos:]...)
	var me *Error
	if err := CheckBody(out, 1); errors.As(err, &me) {
		return me
	}
	return nil
}

// SetSteps replaces the steps: everything between the "## Todos" heading
// line and the end of the section is rewritten in canonical form, the
// steps before the first phase first, then each phase under its heading.
// A step whose text matches (ignoring case) a step already there keeps its
// status and notes; the rest are pending. A missing section is created at
// the end. Criteria are untouched, and a text duplicating a criterion or
// another new step is refused.
func (c *Checklist) SetSteps(phases []PhaseItems) error {
	if line, text := c.foreignTodosText(); line > 0 {
		return fmt.Errorf("the Todos section holds text that is not a todo (%q), which set would drop; move it out of the section, or add steps with td todo add", text)
	}
	type group struct {
		name   string
		origin domain.AgentPath
		texts  []string
	}
	groups := []group{{}}
	for _, ph := range phases {
		name, origin := strings.TrimSpace(ph.Name), domain.AgentPath(strings.TrimSpace(string(ph.Origin)))
		if err := checkPhase(name, origin); err != nil {
			return err
		}
		g := slices.IndexFunc(groups, func(g group) bool { return strings.EqualFold(g.name, name) && g.origin == origin })
		if g < 0 {
			g = len(groups)
			groups = append(groups, group{name: name, origin: origin})
		}
		groups[g].texts = append(groups[g].texts, ph.Texts...)
	}
	var criteria []Item
	for _, it := range c.items {
		if it.Kind == domain.KindCriterion {
			criteria = append(criteria, it)
		}
	}
	var flat []string
	for _, g := range groups {
		flat = append(flat, g.texts...)
	}
	clean, err := checkTexts(flat, criteria)
	if err != nil {
		return err
	}
	old := map[string]Item{}
	for _, it := range c.items {
		if _, ok := old[foldKey(it.Text)]; !ok && it.Kind == domain.KindStep {
			old[foldKey(it.Text)] = it
		}
	}
	eol := c.eol
	var b strings.Builder
	var want []Item
	var wantPhases []Phase
	n := 0
	for gi, g := range groups {
		if gi > 0 {
			b.WriteString(eol)
			b.WriteString("### " + phaseHeading(g.name, g.origin) + eol)
			wantPhases = append(wantPhases, Phase{Name: g.name, Origin: g.origin})
		} else if len(g.texts) > 0 {
			b.WriteString(eol)
		}
		for range g.texts {
			it := Item{Todo: domain.Todo{Kind: domain.KindStep, Status: domain.TodoPending, Text: clean[n], Phase: g.name, Origin: g.origin}}
			n++
			if prev, ok := old[foldKey(it.Text)]; ok {
				it.Status, it.Notes = prev.Status, prev.Notes
			}
			writeItem(&b, markerOf(it.Status), it.Text, eol)
			for k, note := range it.Notes {
				if k > 0 {
					b.WriteString(eol)
				}
				writeNote(&b, note, 2, eol)
			}
			want = append(want, it)
		}
	}
	var e edit
	if todos := c.sections[secTodos]; todos.found {
		if todos.end < len(c.body) {
			b.WriteString(eol)
		}
		e = edit{off: todos.headEnd, del: todos.end - todos.headEnd, ins: c.terminator(todos.headEnd) + b.String()}
	} else {
		p, pre := c.atEnd()
		e = edit{off: p, ins: c.terminator(p) + pre + "## " + todosTitle + eol + b.String()}
	}
	t := c.trial([]edit{e})
	ok := slices.EqualFunc(t.Phases(), wantPhases, func(a, b Phase) bool { return a.Name == b.Name && a.Origin == b.Origin })
	var gotSteps, gotCriteria []Item
	for _, it := range t.items {
		if it.Kind == domain.KindStep {
			gotSteps = append(gotSteps, it)
		} else {
			gotCriteria = append(gotCriteria, it)
		}
	}
	if !ok || !slices.EqualFunc(gotSteps, want, sameItem) || !slices.EqualFunc(gotCriteria, criteria, sameItem) {
		return errors.New("cannot write the steps: a phase name or step text would not read back as written (a heading ending in '#' or in \"(from …)\"?); rephrase it")
	}
	c.adopt(t, []edit{e})
	return nil
}

// foreignTodosText finds the first line of the Todos section that is
// neither a step (with its notes and nested content), a phase heading nor
// blank: the author's text, which rewriting the section would lose. It
// returns its body line and text, or 0 when there is none.
func (c *Checklist) foreignTodosText() (int, string) {
	sec := c.sections[secTodos]
	if !sec.found {
		return 0, ""
	}
	owned := make([]bool, sec.end-sec.headEnd)
	mark := func(start, end int) {
		for i := max(start, sec.headEnd); i < min(end, sec.end); i++ {
			owned[i-sec.headEnd] = true
		}
	}
	for _, it := range c.items {
		if it.Kind == domain.KindStep {
			mark(it.Start, it.End)
		}
	}
	for _, ph := range c.phases {
		mark(ph.start, ph.headEnd)
	}
	for off := sec.headEnd; off < sec.end; {
		end := off + bytes.IndexByte(c.body[off:sec.end], '\n') + 1
		if end <= off {
			end = sec.end
		}
		line := c.body[off:end]
		if !owned[off-sec.headEnd] && len(bytes.TrimSpace(line)) > 0 {
			return lineOf(c.body, off), strings.TrimSpace(string(line))
		}
		off = end
	}
	return 0, ""
}

// Normalize restores the invariants every mutation must leave: if more
// than one item is in progress, all but the first fall back to pending;
// then, if none is in progress, the first pending step is promoted.
// Blocked items are never promoted. It returns the changes it made.
func (c *Checklist) Normalize() []Fix {
	var fixes []Fix
	active := false
	for i, it := range c.items {
		if it.Status != domain.TodoInProgress {
			continue
		}
		if active {
			fixes = append(fixes, Fix{Index: i, Text: it.Text, From: domain.TodoInProgress, To: domain.TodoPending})
		}
		active = true
	}
	if !active {
		for i, it := range c.items {
			if it.Kind == domain.KindStep && it.Status == domain.TodoPending {
				fixes = append(fixes, Fix{Index: i, Text: it.Text, From: domain.TodoPending, To: domain.TodoInProgress})
				break
			}
		}
	}
	if len(fixes) == 0 {
		return nil
	}
	idx, to := make([]int, len(fixes)), make([]domain.TodoStatus, len(fixes))
	for k, f := range fixes {
		idx[k], to[k] = f.Index, f.To
	}
	c.setMarkers(idx, to)
	return fixes
}

// Canonical returns the body as td fmt writes it: every item as
// "- [c] text" (lower-case x), every note as "  > note", the section and
// phase headings as "## Todos", "### Phase (from agent)" and so on. All
// other bytes are kept. An item whose rewrite would change what the list
// says (its text, notes or place) keeps its bytes. Canonical of the result
// returns it unchanged. The checklist itself is not changed.
func (c *Checklist) Canonical() []byte {
	w := c
	for pass := 0; pass < 8; pass++ {
		groups := w.canonicalEdits()
		if len(groups) == 0 {
			break
		}
		if t := w.trial(slices.Concat(groups...)); w.sameShape(t) {
			w = t
			continue
		}
		// One unit at a time, from the end, so earlier offsets hold.
		changed := false
		for g := len(groups) - 1; g >= 0; g-- {
			if t := w.trial(groups[g]); w.sameShape(t) {
				w, changed = t, true
			}
		}
		if !changed {
			break
		}
	}
	return bytes.Clone(w.body)
}

// canonicalEdits returns, per item and per section or phase heading not in
// canonical form, the edits that would make it so, in document order.
func (c *Checklist) canonicalEdits() [][]edit {
	type unit struct {
		at    int
		edits []edit
	}
	var units []unit
	add := func(u *unit, from, to int, want string) {
		if to == len(c.body) && (to == 0 || c.body[to-1] != '\n') {
			want = strings.TrimSuffix(want, c.eol)
		}
		if string(c.body[from:to]) != want {
			u.edits = append(u.edits, edit{off: from, del: to - from, ins: want})
		}
	}
	var b strings.Builder
	for i, it := range c.items {
		u := unit{at: it.Start}
		b.Reset()
		writeItem(&b, markerOf(it.Status), it.Text, c.eol)
		add(&u, it.Start, c.marks[i].headEnd, b.String())
		for k, q := range c.marks[i].notes {
			b.Reset()
			writeNote(&b, it.Notes[k], 2, c.eol)
			add(&u, q[0], q[1], b.String())
		}
		if len(u.edits) > 0 {
			units = append(units, u)
		}
	}
	for k, s := range c.sections {
		if !s.found {
			continue
		}
		u := unit{at: s.start}
		add(&u, s.start, s.headEnd, "## "+[]string{criteriaTitle, todosTitle}[k]+c.eol)
		if len(u.edits) > 0 {
			units = append(units, u)
		}
	}
	for _, p := range c.phases {
		u := unit{at: p.start}
		add(&u, p.start, p.headEnd, strings.TrimRight("### "+phaseHeading(p.Name, p.Origin), " ")+c.eol)
		if len(u.edits) > 0 {
			units = append(units, u)
		}
	}
	sort.Slice(units, func(a, b int) bool { return units[a].at < units[b].at })
	out := make([][]edit, len(units))
	for i, u := range units {
		out[i] = u.edits
	}
	return out
}

// checkIndex refuses an index that names no item.
func (c *Checklist) checkIndex(i int) error {
	if i < 0 || i >= len(c.items) {
		return fmt.Errorf("no todo at index %d: the list has %d", i, len(c.items))
	}
	return nil
}

// lastItem returns the index of the last item for which ok holds, or -1.
func (c *Checklist) lastItem(ok func(int) bool) int {
	for j := len(c.items) - 1; j >= 0; j-- {
		if ok(j) {
			return j
		}
	}
	return -1
}

// findPhase returns the index of the first phase named name (ignoring
// case and runs of white space) with origin origin, or -1. When origin is
// "" and no phase of that name is without one, any origin will do.
func (c *Checklist) findPhase(name string, origin domain.AgentPath) int {
	key, any := foldKey(name), -1
	for k, p := range c.phases {
		if foldKey(p.Name) != key {
			continue
		}
		if p.Origin == origin {
			return k
		}
		if any < 0 && origin == "" {
			any = k
		}
	}
	return any
}

// openRegion finds where a first list goes in body[lo:hi], the content
// under a heading: after the last non-blank line. It returns the offset
// and the separators to write before and after: a blank line after user
// text or after a "##" heading (afterSection), and a blank line before a
// non-blank line that follows.
func (c *Checklist) openRegion(lo, hi int, afterSection bool) (p int, pre, post string) {
	p = trimBlankTail(c.body, lo, hi)
	if p > lo || afterSection {
		pre = c.eol
	}
	if p < len(c.body) && !isBlank(c.body[p:lineEndAt(c.body, p)]) {
		post = c.eol
	}
	return p, pre, post
}

// atEnd returns the end of the body and the blank line to write before a
// new section there, unless the body already ends with one.
func (c *Checklist) atEnd() (int, string) {
	n := len(c.body)
	if n > 0 && trimBlankTail(c.body, 0, n) == n {
		return n, c.eol
	}
	return n, ""
}

// terminator returns the line ending to write before text inserted at p:
// one when p is the end of a body whose last line has none.
func (c *Checklist) terminator(p int) string {
	if p == len(c.body) && p > 0 && c.body[p-1] != '\n' {
		return c.eol
	}
	return ""
}

// insert writes pre+block+post at p if the result passes verify, trying
// extra blank lines around the block when the text next to it would
// otherwise absorb it. It reports whether one of the attempts passed.
func (c *Checklist) insert(p int, pre, block, post string, verify func(*Checklist) bool) bool {
	pre = c.terminator(p) + pre
	for _, sep := range [][2]string{{pre, post}, {pre + c.eol, post}, {pre, post + c.eol}, {pre + c.eol, post + c.eol}} {
		e := []edit{{off: p, ins: sep[0] + block + sep[1]}}
		if t := c.trial(e); verify(t) {
			c.adopt(t, e)
			return true
		}
	}
	return false
}

// trial returns a checklist of the body with edits applied; edits are in
// ascending offset order and do not overlap.
func (c *Checklist) trial(edits []edit) *Checklist {
	size := len(c.body)
	for _, e := range edits {
		size += len(e.ins) - e.del
	}
	out := make([]byte, 0, size)
	pos := 0
	for _, e := range edits {
		out = append(out, c.body[pos:e.off]...)
		out = append(out, e.ins...)
		pos = e.off + e.del
	}
	out = append(out, c.body[pos:]...)
	t := &Checklist{}
	t.load(out)
	return t
}

// adopt makes t, a trial of edits, the checklist's current state and
// records the edits.
func (c *Checklist) adopt(t *Checklist, edits []edit) {
	log := slices.Clone(c.log)
	for i := len(edits) - 1; i >= 0; i-- {
		log = append(log, edits[i])
	}
	*c = *t
	c.log = log
}

// sameExcept reports whether t has the items of c, item i replaced by want.
func (c *Checklist) sameExcept(t *Checklist, i int, want Item) bool {
	if len(t.items) != len(c.items) {
		return false
	}
	for j := range c.items {
		w := c.items[j]
		if j == i {
			w = want
		}
		if !sameItem(t.items[j], w) {
			return false
		}
	}
	return true
}

// sameShape reports whether t says what c says: the same sections, phases
// and items, whatever their bytes.
func (c *Checklist) sameShape(t *Checklist) bool {
	if c.sections[0].found != t.sections[0].found || c.sections[1].found != t.sections[1].found {
		return false
	}
	if !slices.EqualFunc(c.phases, t.phases, func(a, b phaseSpan) bool { return a.Name == b.Name && a.Origin == b.Origin }) {
		return false
	}
	return slices.EqualFunc(c.items, t.items, sameItem)
}

// sameItem reports whether a and b are the same todo, wherever they are.
func sameItem(a, b Item) bool {
	return a.Kind == b.Kind && a.Status == b.Status && a.Text == b.Text &&
		a.Phase == b.Phase && a.Origin == b.Origin && slices.Equal(a.Notes, b.Notes)
}

// checkPhase refuses a phase name or origin td could not write as a
// heading.
func checkPhase(name string, origin domain.AgentPath) error {
	if strings.ContainsAny(name, "\r\n") {
		return fmt.Errorf("the phase name %q spans several lines; a phase is one line", name)
	}
	if origin != "" {
		if !origin.Valid() {
			return fmt.Errorf("origin %q is not an agent path such as primary.subagents.ui", origin)
		}
		if name == "" {
			return fmt.Errorf("steps from %s need a phase name", origin)
		}
	}
	return nil
}

// checkTexts trims texts and refuses an empty one, one with a line break,
// and one that duplicates an item of existing or an earlier text.
func checkTexts(texts []string, existing []Item) ([]string, error) {
	seen := make(map[string]string, len(existing)+len(texts))
	for _, it := range existing {
		if k := foldKey(it.Text); seen[k] == "" {
			seen[k] = it.Text
		}
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, errors.New("a todo text is empty; give every todo some words")
		}
		if strings.ContainsAny(t, "\r\n") {
			return nil, fmt.Errorf("the todo %q spans several lines; a todo is one line of text (add details as a note)", t)
		}
		k := foldKey(t)
		if prev, ok := seen[k]; ok {
			return nil, &DuplicateError{Text: t, Existing: prev}
		}
		seen[k] = t
		out[i] = t
	}
	return out, nil
}

// cleanNote turns any line endings of a note into "\n", trims the white
// space ending each line and the blank lines around the note.
func cleanNote(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// phaseHeading is the text of a phase heading: the name and, for a phase
// from a subagent, " (from <origin>)".
func phaseHeading(name string, origin domain.AgentPath) string {
	if origin == "" {
		return name
	}
	return strings.TrimSpace(name + " (from " + string(origin) + ")")
}

// writeItem writes an item's canonical first line.
func writeItem(b *strings.Builder, mark byte, text, eol string) {
	b.WriteString("- [")
	b.WriteByte(mark)
	b.WriteByte(']')
	if text != "" {
		b.WriteByte(' ')
		b.WriteString(text)
	}
	b.WriteString(eol)
}

// writeNote writes a note as a block quote indented by column spaces.
func writeNote(b *strings.Builder, note string, column int, eol string) {
	indent := strings.Repeat(" ", column)
	for _, l := range strings.Split(note, "\n") {
		b.WriteString(indent)
		b.WriteByte('>')
		if l != "" {
			b.WriteByte(' ')
			b.WriteString(l)
		}
		b.WriteString(eol)
	}
}

// EnsureSections adds the sections of td's a body lacks, empty: "##
// Acceptance criteria" before "## Todos" if there is one, else at the end,
// then "## Todos" at the end. With both headings in every file, the first
// criterion and the first step are written under different lines, so a
// line merge (a forge's merge button) keeps both; so are text appended to
// the description and a first criterion. It reports whether it added any.
func (c *Checklist) EnsureSections() bool {
	added := false
	for _, k := range []int{secCriteria, secTodos} {
		if c.sections[k].found {
			continue
		}
		eol := c.eol
		title := criteriaTitle
		if k == secTodos {
			title = todosTitle
		}
		block := "## " + title + eol
		p, pre, post := 0, "", ""
		if todos := c.sections[secTodos]; k == secCriteria && todos.found {
			p = todos.start
			if p > 0 && trimBlankTail(c.body, 0, p) == p {
				pre = eol
			}
			post = eol
		} else {
			p, pre = c.atEnd()
		}
		verify := func(t *Checklist) bool {
			return t.sections[k].found && slices.EqualFunc(t.items, c.items, sameItem) && len(t.phases) == len(c.phases)
		}
		if !c.insert(p, pre, block, post, verify) {
			return added
		}
		added = true
	}
	return added
}

// WithoutEmptySections returns body without the sections of td's that
// hold nothing but blank lines, and without the blank lines that end it:
// what a reader is shown of a body written with both sections from the
// start. A body with no such section comes back as it is.
func WithoutEmptySections(body []byte) []byte {
	c := ParseChecklist(body)
	var cut [][2]int
	for _, s := range c.sections {
		if s.found && isBlank(c.body[s.headEnd:s.end]) {
			cut = append(cut, [2]int{s.start, s.end})
		}
	}
	if len(cut) == 0 {
		return body
	}
	slices.SortFunc(cut, func(x, y [2]int) int { return x[0] - y[0] })
	var out []byte
	pos := 0
	for _, r := range cut {
		out = append(out, c.body[pos:r[0]]...)
		pos = r[1]
	}
	out = append(out, c.body[pos:]...)
	return out[:trimBlankTail(out, 0, len(out))]
}
