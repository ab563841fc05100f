package markdown

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tdproject/td/policy/domain"
	"github.com/yuin/goldmark/ast"
)

// Section titles, in the canonical spelling td writes.
const (
	criteriaTitle = "Acceptance criteria"
	todosTitle    = "Todos"
)

// Section indexes into Checklist.sections.
const (
	secCriteria = iota
	secTodos
)

// Item is one todo of an issue body: a list item of a top-level list in
// the criteria or Todos section whose text starts with a status marker.
type Item struct {
	// Todo is what the item says: its kind (the section it is in), status
	// (its marker), text (the first paragraph after the marker, lines
	// trimmed and joined with one space), phase, origin (the agent path of
	// its phase's "(from …)" suffix) and notes (one per block quote
	// directly under it).
	domain.Todo
	// Line is the 1-based line of the item's first line within the body.
	Line int
	// Start and End are the item's byte range in the body: from the start
	// of its first line to the end of its last non-blank line, including
	// that line's ending.
	Start, End int
}

// Summarize counts items with the domain's one checklist summary.
func Summarize(items []Item) domain.Summary {
	var s domain.Summary
	for _, it := range items {
		s.Add(it.Todo)
	}
	return s
}

// Phase is a "###" heading of the Todos section, grouping the steps under
// it.
type Phase struct {
	// Name is the heading text without any "(from …)" suffix.
	Name string
	// Origin is the agent path of the "(from …)" suffix, or "".
	Origin domain.AgentPath
	// Line is the 1-based line of the heading within the body.
	Line int
}

// Filter narrows the items Find considers. An empty field matches any
// item; Phase compares case-insensitively.
type Filter struct {
	Kind  domain.TodoKind
	Phase string
	// Open prefers the one open item (neither completed nor abandoned)
	// when a text matches several: "td todo done password" means the
	// step still to do, not the one done yesterday.
	Open bool
}

// Checklist is a parsed issue body. Edits splice bytes into the body and
// read it again (a status change updates its one item in place), so Items
// always describe the current bytes.
type Checklist struct {
	body     []byte
	eol      string
	items    []Item
	marks    []itemMarks
	phases   []phaseSpan
	sections [2]sectionSpan
	log      []edit
}

// itemMarks holds where the parts of an item are, for editing it.
type itemMarks struct {
	marker  int      // offset of the status character between the brackets
	headEnd int      // end of the first paragraph's last line, line ending included
	column  int      // the item's content column (where its '[' starts)
	phase   int      // index of the step's phase, -1 for none and for criteria
	notes   [][2]int // line ranges of the item's notes, blank lines trimmed
}

// sectionSpan is where a recognised section's heading and content are.
type sectionSpan struct {
	found          bool
	start, headEnd int // the heading line(s)
	end            int // the section's end: the next top-level heading of level <= 2, or len(body)
}

// phaseSpan is a phase and where its heading and content are.
type phaseSpan struct {
	Phase
	start, headEnd, end int
}

// edit replaces del bytes at off with ins. A batch of edits is recorded in
// descending offset order, so replaying them one after the other against
// the body before the batch yields the body after it.
type edit struct {
	off, del int
	ins      string
}

// ParseChecklist reads the checklist of an issue body (the bytes after the
// frontmatter). It never fails: whatever is not a todo is user text.
func ParseChecklist(body []byte) *Checklist {
	c := &Checklist{}
	c.load(bytes.Clone(body))
	return c
}

// Bytes returns a copy of the current body.
func (c *Checklist) Bytes() []byte {
	return bytes.Clone(c.body)
}

// Items returns the todos in document order; an item's index is its
// address for the editing methods.
func (c *Checklist) Items() []Item {
	out := make([]Item, len(c.items))
	copy(out, c.items)
	return out
}

// HasSection reports whether the body has the section of kind:
// "## Acceptance criteria" for domain.KindCriterion, "## Todos" for domain.KindStep.
func (c *Checklist) HasSection(kind domain.TodoKind) bool {
	k := sectionOf(kind)
	return k >= 0 && c.sections[k].found
}

// Phases returns the phases of the Todos section in document order.
func (c *Checklist) Phases() []Phase {
	out := make([]Phase, len(c.phases))
	for i, p := range c.phases {
		out[i] = p.Phase
	}
	return out
}

// touched returns the edits made since the checklist was parsed, for
// checking that they stay where they should.
func (c *Checklist) touched() []edit {
	return c.log
}

// sectionOf maps a kind to its section index, or -1.
func sectionOf(kind domain.TodoKind) int {
	switch kind {
	case domain.KindCriterion:
		return secCriteria
	case domain.KindStep:
		return secTodos
	}
	return -1
}

// statusOf maps a marker character to its status, or "".
func statusOf(b byte) domain.TodoStatus {
	switch b {
	case ' ':
		return domain.TodoPending
	case '/':
		return domain.TodoInProgress
	case 'x', 'X':
		return domain.TodoCompleted
	case '-':
		return domain.TodoAbandoned
	case '!':
		return domain.TodoBlocked
	}
	return ""
}

// Marker is the checkbox td writes for a todo of status s: "[x]", "[/]",
// "[-]", "[!]" or "[ ]" (also for a status td does not know).
func Marker(s domain.TodoStatus) string {
	if m := markerOf(s); m != 0 {
		return "[" + string(m) + "]"
	}
	return "[ ]"
}

// markerOf maps a status to the marker character td writes, or 0.
func markerOf(status domain.TodoStatus) byte {
	switch status {
	case domain.TodoPending:
		return ' '
	case domain.TodoInProgress:
		return '/'
	case domain.TodoCompleted:
		return 'x'
	case domain.TodoAbandoned:
		return '-'
	case domain.TodoBlocked:
		return '!'
	}
	return 0
}

// load makes body the current body and parses it.
func (c *Checklist) load(body []byte) {
	c.body = body
	c.eol = dominantEOL(body)
	c.items, c.marks, c.phases = nil, nil, nil
	c.sections = [2]sectionSpan{}
	doc, _ := parseBody(body)
	hs := headingsOf(doc, body)
	for i, h := range hs {
		if h.Level != 2 {
			continue
		}
		k := -1
		switch {
		case strings.EqualFold(h.Text, criteriaTitle):
			k = secCriteria
		case strings.EqualFold(h.Text, todosTitle):
			k = secTodos
		}
		if k < 0 || c.sections[k].found {
			continue
		}
		end := len(body)
		for _, n := range hs[i+1:] {
			if n.Level <= 2 {
				end = n.Start
				break
			}
		}
		c.sections[k] = sectionSpan{found: true, start: h.Start, headEnd: h.End, end: end}
	}
	if todos := c.sections[secTodos]; todos.found {
		for _, h := range hs {
			if h.Level != 3 || h.Start < todos.headEnd || h.Start >= todos.end {
				continue
			}
			if n := len(c.phases); n > 0 {
				c.phases[n-1].end = h.Start
			}
			name, origin := splitOrigin(h.Text)
			c.phases = append(c.phases, phaseSpan{
				Phase: Phase{Name: name, Origin: origin},
				start: h.Start, headEnd: h.End, end: todos.end,
			})
		}
	}
	lines := newLineCounter(body)
	for i := range c.phases {
		c.phases[i].Line = lines.at(c.phases[i].start)
	}
	lines = newLineCounter(body)
	prevEnd, phase := 0, -1
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		list, ok := n.(*ast.List)
		if !ok {
			continue
		}
		start := c.lineStart(nodePos(list, body))
		if start < 0 {
			continue
		}
		k, sec := -1, sectionSpan{}
		for i, s := range c.sections {
			if s.found && start >= s.headEnd && start < s.end {
				k, sec = i, s
			}
		}
		if k < 0 {
			continue
		}
		limit := sec.end
		if next := n.NextSibling(); next != nil {
			if p := c.lineStart(nodePos(next, body)); p > start && p < limit {
				limit = p
			}
		}
		for li := list.FirstChild(); li != nil; li = li.NextSibling() {
			itemStart := c.lineStart(nodePos(li, body))
			if itemStart < prevEnd || itemStart >= limit {
				continue
			}
			itemLimit := limit
			if next := li.NextSibling(); next != nil {
				if p := c.lineStart(nodePos(next, body)); p > itemStart && p < itemLimit {
					itemLimit = p
				}
			}
			it, m, ok := c.readItem(li, itemStart, itemLimit)
			if !ok {
				continue
			}
			it.Kind, m.phase = domain.KindStep, -1
			if k == secCriteria {
				it.Kind = domain.KindCriterion
			} else {
				for phase+1 < len(c.phases) && c.phases[phase+1].start <= it.Start {
					phase++
				}
				if phase >= 0 {
					it.Phase, it.Origin, m.phase = c.phases[phase].Name, c.phases[phase].Origin, phase
				}
			}
			it.Line = lines.at(it.Start)
			c.items = append(c.items, it)
			c.marks = append(c.marks, m)
			prevEnd = it.End
		}
	}
}

// readItem reads the list item li whose first line starts at start and
// whose bytes cannot reach past limit. It reports false for a list item
// without a status marker.
func (c *Checklist) readItem(li ast.Node, start, limit int) (Item, itemMarks, bool) {
	body := c.body
	first := li.FirstChild()
	if first == nil || (first.Kind() != ast.KindParagraph && first.Kind() != ast.KindTextBlock) {
		return Item{}, itemMarks{}, false
	}
	lines := first.Lines()
	if lines.Len() == 0 {
		return Item{}, itemMarks{}, false
	}
	seg := lines.At(0)
	if seg.Start < start || seg.Stop > len(body) || seg.Start > seg.Stop || bytes.IndexByte(body[start:seg.Start], '\n') >= 0 {
		return Item{}, itemMarks{}, false
	}
	p := seg.Start
	for p < seg.Stop && (body[p] == ' ' || body[p] == '\t') {
		p++
	}
	if p+3 > seg.Stop || body[p] != '[' || body[p+2] != ']' || statusOf(body[p+1]) == "" {
		return Item{}, itemMarks{}, false
	}
	if q := p + 3; q < len(body) && body[q] != ' ' && body[q] != '\t' && body[q] != '\n' &&
		!(body[q] == '\r' && q+1 < len(body) && body[q+1] == '\n') {
		return Item{}, itemMarks{}, false
	}
	parts := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		from := s.Start
		if i == 0 {
			from = p + 3
		}
		if from > s.Stop || s.Stop > len(body) {
			continue
		}
		if t := trimLine(string(body[from:s.Stop])); t != "" {
			parts = append(parts, t)
		}
	}
	end := trimBlankTail(body, start, limit)
	headEnd := min(lineEndAt(body, lines.At(lines.Len()-1).Start), end)
	it := Item{
		Todo:  domain.Todo{Status: statusOf(body[p+1]), Text: strings.Join(parts, " ")},
		Start: start,
		End:   end,
	}
	m := itemMarks{marker: p + 1, headEnd: max(headEnd, lineEndAt(body, p)), column: columnOf(body[start:p])}
	for ch := first.NextSibling(); ch != nil; ch = ch.NextSibling() {
		if ch.Kind() != ast.KindBlockquote {
			continue
		}
		qs := c.lineStart(nodePos(ch, body))
		if qs < m.headEnd || qs >= end {
			continue
		}
		qe := end
		if next := ch.NextSibling(); next != nil {
			if p := c.lineStart(nodePos(next, body)); p > qs && p < qe {
				qe = p
			}
		}
		qe = trimBlankTail(body, qs, qe)
		m.notes = append(m.notes, [2]int{qs, qe})
		it.Notes = append(it.Notes, noteText(body[qs:qe]))
	}
	return it, m, true
}

// noteText reads a note from the lines of its block quote: each line
// without its indentation, its '>' with one following space and its
// trailing white space, joined with "\n" and trimmed.
func noteText(quote []byte) string {
	var b strings.Builder
	for len(quote) > 0 {
		line, rest := cutLine(quote)
		quote = rest
		line = bytes.TrimRight(line, " \t\r\n")
		line = bytes.TrimLeft(line, " \t")
		if len(line) > 0 && line[0] == '>' {
			line = line[1:]
			if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
				line = line[1:]
			}
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(line)
	}
	return strings.TrimSpace(b.String())
}

// splitOrigin splits a phase heading's text into the phase name and the
// agent path of a trailing "(from <path>)", if it has one.
func splitOrigin(h string) (name string, origin domain.AgentPath) {
	if !strings.HasSuffix(h, ")") {
		return h, ""
	}
	open := strings.LastIndex(h, "(from ")
	if open < 0 {
		return h, ""
	}
	path := domain.AgentPath(strings.TrimSpace(h[open+len("(from ") : len(h)-1]))
	if !path.Valid() {
		return h, ""
	}
	return strings.TrimSpace(h[:open]), path
}

// headingsOf lists the top-level headings of a parsed body. Headings and
// the checklist share it, so the checklist parses a body once.
func headingsOf(doc ast.Node, body []byte) []Heading {
	var out []Heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		lines := h.Lines()
		pos := h.Pos()
		if pos < 0 && lines.Len() > 0 {
			pos = lines.At(0).Start
		}
		if pos < 0 || pos > len(body) {
			continue
		}
		start := bytes.LastIndexByte(body[:pos], '\n') + 1
		end := lineEndAt(body, start)
		if !isATX(body[start:end]) {
			if lines.Len() > 0 {
				if last := lines.At(lines.Len() - 1).Start; last >= start && last <= len(body) {
					end = lineEndAt(body, last)
				}
			}
			end = lineEndAt(body, end)
		}
		if len(out) > 0 && start < out[len(out)-1].End {
			continue
		}
		parts := make([]string, 0, lines.Len())
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			if seg.Start < 0 || seg.Stop > len(body) || seg.Start > seg.Stop {
				continue
			}
			parts = append(parts, strings.TrimSpace(string(body[seg.Start:seg.Stop])))
		}
		out = append(out, Heading{
			Level: h.Level,
			Text:  strings.TrimSpace(strings.Join(parts, "\n")),
			Start: start,
			End:   end,
		})
	}
	return out
}

// nodePos returns the offset where goldmark saw block n begin, or -1.
func nodePos(n ast.Node, body []byte) int {
	if p := n.Pos(); p >= 0 && p <= len(body) {
		return p
	}
	for d := n; d != nil; d = d.FirstChild() {
		if d.Type() == ast.TypeBlock && d.Lines().Len() > 0 {
			if p := d.Lines().At(0).Start; p >= 0 && p <= len(body) {
				return p
			}
		}
	}
	return -1
}

// lineStart returns the start of the line holding offset off, or -1 for -1.
func (c *Checklist) lineStart(off int) int {
	if off < 0 {
		return -1
	}
	return bytes.LastIndexByte(c.body[:off], '\n') + 1
}

// trimBlankTail returns the end of the last non-blank line in
// body[start:end], that line's ending included, or start if all are blank.
// end must be start, len(body) or the start of a line.
func trimBlankTail(body []byte, start, end int) int {
	for end > start {
		ls := bytes.LastIndexByte(body[:end-1], '\n') + 1
		if ls < start {
			ls = start
		}
		if !isBlank(body[ls:end]) {
			return end
		}
		end = ls
	}
	return start
}

// isBlank reports whether line holds nothing but spaces, tabs and a line
// ending.
func isBlank(line []byte) bool {
	for _, ch := range line {
		if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
			return false
		}
	}
	return true
}

// trimLine trims the white space around a line of item text, as Find
// trims a query.
func trimLine(s string) string {
	return strings.TrimSpace(s)
}

// columnOf returns the column after prefix, with tab stops every 4 columns.
func columnOf(prefix []byte) int {
	col := 0
	for _, ch := range prefix {
		if ch == '\t' {
			col += 4 - col%4
		} else if ch < 0x80 || utf8.RuneStart(ch) {
			col++
		}
	}
	return col
}

// dominantEOL returns "\r\n" when most lines of body end that way, else
// "\n".
func dominantEOL(body []byte) string {
	crlf := bytes.Count(body, []byte("\r\n"))
	if crlf > bytes.Count(body, []byte("\n"))-crlf {
		return "\r\n"
	}
	return "\n"
}

// lineCounter turns increasing offsets into 1-based line numbers in one
// pass over the body.
type lineCounter struct {
	body      []byte
	off, line int
}

func newLineCounter(body []byte) *lineCounter {
	return &lineCounter{body: body, line: 1}
}

// at returns the line of offset off; off never decreases between calls.
func (lc *lineCounter) at(off int) int {
	if off < lc.off {
		lc.off, lc.line = 0, 1
	}
	lc.line += bytes.Count(lc.body[lc.off:off], []byte("\n"))
	lc.off = off
	return lc.line
}

// AddressError is a todo address that names no item, or more than one.
type AddressError struct {
	// Query is the text that was looked for.
	Query string
	// Candidates holds the texts of the matching items, in document order,
	// when the query is ambiguous.
	Candidates []string
	// Nearest is the text of the item closest to the query, when nothing
	// matches; "" when there is no item to suggest.
	Nearest string
	// Filter is the restriction the lookup ran under.
	Filter Filter
}

// Error says what went wrong and what would resolve it.
func (e *AddressError) Error() string {
	if len(e.Candidates) > 0 {
		quoted := make([]string, len(e.Candidates))
		for i, t := range e.Candidates {
			quoted[i] = fmt.Sprintf("%q", t)
		}
		return fmt.Sprintf("%q matches %d todos: %s; use more of the text", e.Query, len(e.Candidates), strings.Join(quoted, ", "))
	}
	if e.Nearest != "" {
		return fmt.Sprintf("no todo matches %q; did you mean %q?", e.Query, e.Nearest)
	}
	switch {
	case e.Filter.Phase != "" && e.Filter.Kind != "":
		return fmt.Sprintf("no todo matches %q; there is no %s in phase %q", e.Query, e.Filter.Kind, e.Filter.Phase)
	case e.Filter.Phase != "":
		return fmt.Sprintf("no todo matches %q; phase %q has no todos", e.Query, e.Filter.Phase)
	case e.Filter.Kind == domain.KindCriterion:
		return fmt.Sprintf("no todo matches %q; there are no acceptance criteria", e.Query)
	case e.Filter.Kind == domain.KindStep:
		return fmt.Sprintf("no todo matches %q; there are no steps", e.Query)
	}
	return fmt.Sprintf("no todo matches %q; the list is empty", e.Query)
}

// Find returns the index of the item that query names among the items f
// admits: the item whose text is exactly query, else the one equal to it
// ignoring case, else the one containing it ignoring case. Each tier must
// name one item; otherwise the error is an *AddressError listing the
// candidates or suggesting the nearest text. With f.Open, a tier naming
// several items of which exactly one is open names that one.
func (c *Checklist) Find(query string, f Filter) (int, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return -1, fmt.Errorf("name the todo by its text")
	}
	var pool []int
	for i, it := range c.items {
		if (f.Kind == "" || it.Kind == f.Kind) && (f.Phase == "" || strings.EqualFold(it.Phase, strings.TrimSpace(f.Phase))) {
			pool = append(pool, i)
		}
	}
	fold := foldKey(q)
	tiers := []func(Item) bool{
		func(it Item) bool { return it.Text == q },
		func(it Item) bool { return foldKey(it.Text) == fold },
		func(it Item) bool { return strings.Contains(foldKey(it.Text), fold) },
	}
	for _, match := range tiers {
		var hits []int
		for _, i := range pool {
			if match(c.items[i]) {
				hits = append(hits, i)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], nil
		case len(hits) > 1:
			if f.Open {
				open := -1
				n := 0
				for _, i := range hits {
					if st := c.items[i].Status; st != domain.TodoCompleted && st != domain.TodoAbandoned {
						open, n = i, n+1
					}
				}
				if n == 1 {
					return open, nil
				}
			}
			e := &AddressError{Query: q, Filter: f}
			for _, i := range hits {
				e.Candidates = append(e.Candidates, c.items[i].Text)
			}
			return -1, e
		}
	}
	e := &AddressError{Query: q, Filter: f}
	best := -1
	for _, i := range pool {
		if d := editDistance(fold, foldKey(c.items[i].Text)); best < 0 || d < best {
			best, e.Nearest = d, c.items[i].Text
		}
	}
	return -1, e
}

// foldKey is the form texts are compared in when case does not matter:
// lower case, with every run of white space as one space.
func foldKey(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// editDistance returns the Levenshtein distance between a and b in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	row := make([]int, len(rb)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(rb)]
}

// Render returns the list as the file shows it, for printing: the
// "## Acceptance criteria" heading and the criteria, a blank line, then
// "## Todos" with the steps before the first phase and, for each phase
// holding steps, its heading line (after a blank line) and its steps.
// Items keep their raw bytes, notes and nested content included; CRLF is
// shown as LF. Sections without items are left out; with no items at all
// the result is "".
func (c *Checklist) Render() string {
	var b strings.Builder
	raw := func(from, to int) {
		s := strings.ReplaceAll(string(c.body[from:to]), "\r\n", "\n")
		b.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, kind := range []domain.TodoKind{domain.KindCriterion, domain.KindStep} {
		opened, afterHeading, phase := false, false, -1
		for i, it := range c.items {
			if it.Kind != kind {
				continue
			}
			if !opened {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				title := todosTitle
				if kind == domain.KindCriterion {
					title = criteriaTitle
				}
				b.WriteString("## " + title + "\n")
				opened, afterHeading = true, true
			}
			if kind == domain.KindStep {
				if p := c.marks[i].phase; p != phase {
					phase = p
					if p >= 0 {
						if !afterHeading {
							b.WriteByte('\n')
						}
						raw(c.phases[p].start, c.phases[p].headEnd)
					}
				}
			}
			raw(it.Start, it.End)
			afterHeading = false
		}
	}
	return b.String()
}
