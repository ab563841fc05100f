package markdown

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// tokenPrefix starts the line that stands for a run of todos while the
// rest of the body is merged line by line. A body holding a NUL byte is
// never merged this way, so the line cannot clash with the user's text.
const tokenPrefix = "\x00td-todos\x00"

// groupKey names where a todo lives: its section, and for a step its phase.
type groupKey struct {
	kind   domain.TodoKind
	phase  string
	origin domain.AgentPath
}

// token is the line, without its ending, that stands for the group's todos.
func (k groupKey) token() string {
	return tokenPrefix + string(k.kind) + "\x00" + k.phase + "\x00" + string(k.origin) + "\x00"
}

// describe names the group in a conflict phrase.
func (k groupKey) describe() string {
	switch {
	case k.kind == domain.KindCriterion:
		return "the acceptance criteria"
	case k.phase == "":
		return "the todos"
	}
	return fmt.Sprintf("the todos under %q", phaseHeading(k.phase, k.origin))
}

// todo is one checklist item of one side, with its bytes.
type todo struct {
	Item
	// raw is the item's bytes, notes and nested content included, always
	// ending with a line break.
	raw []byte
	// residue is what the item says besides its status and notes: its
	// bytes with the marker masked, the notes cut and blank lines dropped.
	residue string
	// conflict marks the region that stands for a todo both sides
	// changed differently (markedTodo).
	conflict bool
}

// run is the todos of one group on one side: consecutive items with
// nothing but blank lines between them.
type run struct {
	key   groupKey
	todos []todo
	// body is the bytes from the first item to the end of the last, without
	// the last line ending (which stays with the token line).
	body  []byte
	loose bool // blank lines separate the items
	// index maps a todo's text to its place in todos, so that matching
	// the todos of three sides stays linear in their number.
	index map[string]int
}

// add appends t, reporting false when the run already has a todo with its
// text.
func (r *run) add(t todo) bool {
	if r.index == nil {
		r.index = map[string]int{}
	}
	if _, dup := r.index[t.Text]; dup {
		return false
	}
	r.index[t.Text] = len(r.todos)
	r.todos = append(r.todos, t)
	return true
}

func (r *run) find(text string) *todo {
	if r == nil {
		return nil
	}
	if i, ok := r.index[text]; ok {
		return &r.todos[i]
	}
	return nil
}

func (r *run) texts() []string {
	if r == nil {
		return nil
	}
	out := make([]string, len(r.todos))
	for i, t := range r.todos {
		out[i] = t.Text
	}
	return out
}

// bodyLayout is a body split for merging: the skeleton (the body with each
// run of todos replaced by its token line) and the runs.
type bodyLayout struct {
	skeleton []byte
	runs     map[groupKey]*run
	order    []groupKey
	eol      string
}

// layoutBody splits a body for merging. It reports false when the todos
// cannot be merged one by one: a NUL byte, a group whose todos are split by
// other text, or two todos with the same text in one group.
func layoutBody(body []byte) (*bodyLayout, bool) {
	if bytes.IndexByte(body, 0) >= 0 {
		return nil, false
	}
	c := ParseChecklist(body)
	l := &bodyLayout{runs: map[groupKey]*run{}, eol: c.eol}
	var sk bytes.Buffer
	pos, start, prevEnd := 0, 0, 0
	var cur *run
	flush := func() {
		if cur == nil {
			return
		}
		ending := lineEnding(c.body[:prevEnd])
		cur.body = c.body[start : prevEnd-len(ending)]
		sk.Write(c.body[pos:start])
		sk.WriteString(cur.key.token())
		sk.WriteString(ending)
		pos = prevEnd
	}
	for i, it := range c.items {
		key := groupKey{kind: it.Kind, phase: it.Phase, origin: it.Origin}
		if cur == nil || cur.key != key || !isBlank(c.body[prevEnd:it.Start]) {
			flush()
			if _, seen := l.runs[key]; seen || strings.ContainsAny(key.token(), "\r\n") {
				return nil, false
			}
			cur = &run{key: key}
			l.runs[key], l.order, start = cur, append(l.order, key), it.Start
		} else if prevEnd < it.Start {
			cur.loose = true
		}
		if cur.find(it.Text) != nil {
			return nil, false
		}
		raw := bytes.Clone(c.body[it.Start:it.End])
		if lineEnding(raw) == "" {
			raw = append(raw, c.eol...)
		}
		cur.add(todo{Item: it, raw: raw, residue: residueOf(c.body, it, c.marks[i])})
		prevEnd = it.End
	}
	flush()
	sk.Write(c.body[pos:])
	l.skeleton = sk.Bytes()
	return l, true
}

// lineEnding returns the line ending that b ends with: "\r\n", "\n" or "".
func lineEnding(b []byte) string {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return "\r\n"
	case bytes.HasSuffix(b, []byte("\n")):
		return "\n"
	}
	return ""
}

// residueOf returns what item it says besides its status and notes.
func residueOf(body []byte, it Item, m itemMarks) string {
	var b []byte
	b = append(b, body[it.Start:m.marker]...)
	b = append(b, '?')
	pos := m.marker + 1
	for _, q := range m.notes {
		if q[0] >= pos {
			b = append(b, body[pos:q[0]]...)
			pos = q[1]
		}
	}
	b = append(b, body[pos:it.End]...)
	var out strings.Builder
	for _, line := range splitLines(b) {
		if !isBlank(line) {
			out.Write(bytes.TrimRight(line, "\r\n"))
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// mergeChecklist merges three versions of a text that holds todos (a
// section of td's, or a phase): the todos one by one, the rest of the text
// line by line (see MergeIssue). what names the text in a conflict phrase.
func mergeChecklist(o, a, b []byte, what string) ([]byte, []string) {
	switch {
	case bytes.Equal(a, b), bytes.Equal(b, o):
		return a, nil
	case bytes.Equal(a, o):
		return b, nil
	}
	lo, okO := layoutBody(o)
	la, okA := layoutBody(a)
	lb, okB := layoutBody(b)
	if !okO || !okA || !okB {
		// Todos td cannot tell apart: git's rule, since keeping both
		// sides' additions could repeat a todo.
		out, conflict := MergeLines(o, a, b, "ours", "theirs")
		if conflict {
			return nil, []string{"the same lines of " + what}
		}
		return out, nil
	}
	sk, conflict := mergeText(lo.skeleton, la.skeleton, lb.skeleton)
	if conflict {
		return nil, []string{"the same lines of " + what}
	}
	var keys []groupKey
	for _, l := range []*bodyLayout{lo, la, lb} {
		for _, k := range l.order {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	merged := map[groupKey]*run{}
	var conflicts, marked []string
	for _, k := range keys {
		r, c, placed := mergeRun(k, lo.runs[k], la.runs[k], lb.runs[k], la.eol)
		merged[k] = r
		if placed {
			marked = append(marked, c...)
		} else {
			conflicts = append(conflicts, c...)
		}
	}
	if len(conflicts) > 0 {
		return nil, append(conflicts, marked...)
	}
	tokens := map[string]groupKey{}
	for _, k := range keys {
		tokens[k.token()] = k
	}
	var out bytes.Buffer
	var want []Item
	var wantRaw [][]byte
	used := map[groupKey]bool{}
	for _, line := range splitLines(sk) {
		if !bytes.HasPrefix(line, []byte(tokenPrefix)) {
			out.Write(line)
			continue
		}
		ending := lineEnding(line)
		k, ok := tokens[string(line[:len(line)-len(ending)])]
		if !ok || used[k] {
			return nil, []string{"the place of the todos in the body"}
		}
		used[k] = true
		r := merged[k]
		if len(r.todos) == 0 {
			continue
		}
		out.Write(r.body)
		out.WriteString(ending)
		for _, t := range r.todos {
			want = append(want, t.Item)
			wantRaw = append(wantRaw, t.raw)
		}
	}
	for _, k := range keys {
		if !used[k] && len(merged[k].todos) > 0 {
			conflicts = append(conflicts, k.describe()+" (their place in the body is gone)")
		}
	}
	if len(conflicts) > 0 {
		return nil, append(conflicts, marked...)
	}
	body := out.Bytes()
	if len(marked) > 0 {
		// Each todo both sides changed differently is marked in its
		// place; the rest of the list merged.
		return body, marked
	}
	// Every todo must read back as merged, with its own bytes: a line the
	// other side added next to it must not have become part of it.
	got := ParseChecklist(body)
	sameRaw := len(got.items) == len(wantRaw)
	for i := 0; sameRaw && i < len(got.items); i++ {
		b := got.body[got.items[i].Start:got.items[i].End]
		sameRaw = bytes.Equal(b, wantRaw[i]) || bytes.Equal(b, wantRaw[i][:len(wantRaw[i])-len(lineEnding(wantRaw[i]))])
	}
	if !sameRaw || !slices.EqualFunc(got.items, want, sameItem) {
		return nil, []string{"the checklist (the merged list would not read back as merged)"}
	}
	return body, nil
}

// mergeRun merges the todos of one group. Each side's run may be nil. The
// order is the one side's when the other kept the base order and members;
// otherwise the base todos in base order, then ours' additions, then
// theirs'. A todo both sides changed differently is kept in its place as
// a conflict region, ours' lines then theirs'; the run is then returned
// with its conflicts and true. Any other conflict (the order) returns a
// nil run, the conflicts and false.
func mergeRun(k groupKey, o, a, b *run, eol string) (*run, []string, bool) {
	so, sa, sb := o.texts(), a.texts(), b.texts()
	var all []string
	seen := map[string]bool{}
	for _, s := range [][]string{so, sa, sb} {
		for _, t := range s {
			if !seen[t] {
				seen[t] = true
				all = append(all, t)
			}
		}
	}
	var conflicts, marked []string
	result := map[string]*todo{}
	for _, text := range all {
		t, c := mergeTodo(o.find(text), a.find(text), b.find(text), eol)
		if c != "" {
			marked = append(marked, c)
			t = markedTodo(text, a.find(text), b.find(text), eol)
		}
		if t != nil {
			result[text] = t
		}
	}
	var seq []string
	switch {
	case slices.Equal(sa, sb), slices.Equal(sb, so):
		seq = sa
	case slices.Equal(sa, so):
		seq = sb
	default:
		// The base's todos go in the base's order, or in the order one
		// side gave them when the other kept the base's; both sides may
		// have reordered them only alike.
		ref := so
		switch ra, rb := !keepsOrder(so, sa), !keepsOrder(so, sb); {
		case ra && rb && !slices.Equal(kept(sa, o, b), kept(sb, o, a)):
			conflicts = append(conflicts, "the order of "+k.describe())
		case ra:
			ref = sa
		case rb:
			ref = sb
		}
		if len(conflicts) > 0 {
			break
		}
		inSeq := map[string]bool{}
		for _, t := range ref {
			if o.find(t) == nil || inSeq[t] {
				continue
			}
			if a.find(t) != nil && b.find(t) != nil || result[t] != nil && result[t].conflict {
				seq = append(seq, t)
				inSeq[t] = true
			}
		}
		for _, t := range slices.Concat(sa, sb) {
			if o.find(t) == nil && !inSeq[t] {
				seq = append(seq, t)
				inSeq[t] = true
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, append(conflicts, marked...), false
	}
	// A todo one side deleted and the other changed is in neither's
	// order: it goes after the todo before it in the base.
	for _, text := range so {
		if t := result[text]; t != nil && t.conflict && !slices.Contains(seq, text) {
			pos := 0
			for i := slices.Index(so, text) - 1; i >= 0; i-- {
				if j := slices.Index(seq, so[i]); j >= 0 {
					pos = j + 1
					break
				}
			}
			seq = slices.Insert(seq, pos, text)
		}
	}
	out := &run{key: k}
	for _, text := range seq {
		t, ok := result[text]
		if !ok {
			return nil, append([]string{fmt.Sprintf("the todo %q", text)}, marked...), false
		}
		out.add(*t)
	}
	if len(out.todos) != len(result) {
		return nil, append([]string{"the members of " + k.describe()}, marked...), false
	}
	for _, side := range []*run{a, b} {
		if side != nil && sameTodos(out.todos, side.todos) {
			out.body = side.body
			return out, marked, len(marked) > 0
		}
	}
	for _, side := range []*run{a, b, o} {
		if side != nil && len(side.todos) > 1 {
			out.loose = side.loose
			break
		}
	}
	var body []byte
	for i, t := range out.todos {
		if i > 0 && out.loose {
			body = append(body, eol...)
		}
		body = append(body, t.raw...)
	}
	out.body = body[:len(body)-len(lineEnding(body))]
	return out, marked, len(marked) > 0
}

// markedTodo is the conflict region that stands for a todo both sides
// changed differently: ours' lines of it, then theirs' (none where a side
// deleted it).
func markedTodo(text string, a, b *todo, eol string) *todo {
	var ours, theirs []byte
	if a != nil {
		ours = a.raw
	}
	if b != nil {
		theirs = b.raw
	}
	t := todo{raw: markRegion(ours, theirs, eol), conflict: true}
	t.Text = text
	return &t
}

// kept returns the todos of side that the base and the other side also
// hold, in side's order.
func kept(side []string, o, other *run) []string {
	var out []string
	for _, t := range side {
		if o.find(t) != nil && other.find(t) != nil {
			out = append(out, t)
		}
	}
	return out
}

// keepsOrder reports whether the todos side kept from base are in base
// order.
func keepsOrder(base, side []string) bool {
	at := make(map[string]int, len(base))
	for i, t := range base {
		if _, ok := at[t]; !ok {
			at[t] = i
		}
	}
	last := -1
	for _, t := range side {
		if i, ok := at[t]; ok {
			if i < last {
				return false
			}
			last = i
		}
	}
	return true
}

// sameTodos reports whether two lists hold the same todos with the same
// bytes.
func sameTodos(x, y []todo) bool {
	return slices.EqualFunc(x, y, func(p, q todo) bool { return p.Text == q.Text && bytes.Equal(p.raw, q.raw) })
}

// mergeTodo merges one todo, nil meaning absent on that side. It returns
// the merged todo (nil when it is deleted) or a conflict phrase.
func mergeTodo(o, a, b *todo, eol string) (*todo, string) {
	switch {
	case a == nil && b == nil:
		return nil, ""
	case a == nil || b == nil:
		kept := a
		if kept == nil {
			kept = b
		}
		if o == nil {
			return kept, ""
		}
		if bytes.Equal(kept.raw, o.raw) {
			return nil, ""
		}
		return nil, fmt.Sprintf("the todo %q (one side deleted it, the other changed it)", kept.Text)
	case bytes.Equal(a.raw, b.raw):
		return a, ""
	case o != nil && bytes.Equal(b.raw, o.raw):
		return a, ""
	case o != nil && bytes.Equal(a.raw, o.raw):
		return b, ""
	}
	conflict := fmt.Sprintf("the todo %q", a.Text)
	status, ok := mergeStatus(o, a.Status, b.Status)
	if !ok {
		return nil, conflict
	}
	carrier, other := a, b
	switch {
	case a.residue == b.residue:
	case o != nil && b.residue == o.residue:
	case o != nil && a.residue == o.residue:
		carrier, other = b, a
	default:
		return nil, conflict
	}
	var base []string
	if o != nil {
		base = o.Notes
	}
	if hasRepeats(base) || hasRepeats(a.Notes) || hasRepeats(b.Notes) {
		return nil, conflict + " (a note repeats, so the notes cannot be merged as a set)"
	}
	t, ok := mergeNotes(carrier, other, base, status, eol)
	if !ok && a.residue == b.residue {
		// Either side's bytes can carry the merge: one may take the
		// other's notes where the other cannot take its (a note td would
		// not write, as an empty one).
		t, ok = mergeNotes(other, carrier, base, status, eol)
	}
	if !ok {
		return nil, conflict
	}
	return t, ""
}

// mergeNotes merges the notes of a todo as sets onto carrier's bytes: a
// note one side added is kept, a note one side removed (td removes a
// "blocked: …" note when the todo stops being blocked) goes.
func mergeNotes(carrier, other *todo, base []string, status domain.TodoStatus, eol string) (*todo, bool) {
	var extra, gone []string
	for _, n := range carrier.Notes {
		if slices.Contains(base, n) && !slices.Contains(other.Notes, n) {
			gone = append(gone, n)
		}
	}
	for _, n := range other.Notes {
		if !slices.Contains(base, n) && !slices.Contains(carrier.Notes, n) && !slices.Contains(extra, n) {
			extra = append(extra, n)
		}
	}
	return rewriteTodo(carrier, status, gone, extra, eol)
}

// hasRepeats reports whether a text occurs twice in ss.
func hasRepeats(ss []string) bool {
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		if seen[s] {
			return true
		}
		seen[s] = true
	}
	return false
}

// mergeStatus is the three-way merge of a todo's status; o is nil for a
// todo both sides added. When both sides changed it differently and one of
// them to in progress, the other wins.
func mergeStatus(o *todo, a, b domain.TodoStatus) (domain.TodoStatus, bool) {
	switch {
	case a == b:
		return a, true
	case o != nil && a == o.Status:
		return b, true
	case o != nil && b == o.Status:
		return a, true
	case a == domain.TodoInProgress:
		return b, true
	case b == domain.TodoInProgress:
		return a, true
	}
	return "", false
}

// rewriteTodo returns t with the given status, the notes gone removed and
// the extra notes appended, edited the way td edits a todo: the marker
// rewritten in place, each note removed with its block quote and added as
// a block quote after the item.
func rewriteTodo(t *todo, status domain.TodoStatus, gone, extra []string, eol string) (*todo, bool) {
	if status == t.Status && len(gone) == 0 && len(extra) == 0 {
		return t, true
	}
	if e := lineEnding(t.raw); e != "" {
		eol = e
	}
	prefix := "## " + todosTitle + eol + eol
	c := ParseChecklist(append([]byte(prefix), t.raw...))
	if len(c.items) != 1 || c.items[0].Text != t.Text || c.items[0].Status != t.Status || !slices.Equal(c.items[0].Notes, t.Notes) {
		return nil, false
	}
	if err := c.SetStatus(0, status); err != nil {
		return nil, false
	}
	if _, err := c.RemoveNotes(0, func(n string) bool { return slices.Contains(gone, n) }); err != nil {
		return nil, false
	}
	for _, n := range extra {
		if err := c.AddNote(0, n); err != nil {
			return nil, false
		}
	}
	if !bytes.HasPrefix(c.body, []byte(prefix)) {
		return nil, false
	}
	out := *t
	out.raw = bytes.Clone(c.body[len(prefix):])
	if lineEnding(out.raw) == "" {
		out.raw = append(out.raw, eol...)
	}
	out.Status = status
	kept := slices.DeleteFunc(slices.Clone(t.Notes), func(n string) bool { return slices.Contains(gone, n) })
	out.Notes = slices.Concat(kept, extra)
	if !slices.Equal(c.items[0].Notes, out.Notes) {
		return nil, false
	}
	return &out, true
}
