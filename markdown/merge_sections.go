package markdown

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// The body of an issue file merges as a sequence of pieces, each merged on
// its own: the description (everything before the first section heading),
// then every section (a level 1 or 2 heading and what follows it up to
// the next), the Todos section cut further into the steps before its first
// phase and one piece per phase. A piece begins with the blank lines
// before its heading, so text one side appends to the piece before it and
// a section the other side adds after it are changes at different places.
// The pieces are matched across the sides by their headings, so two sides
// that each add a section (the acceptance criteria on one, the first steps
// on the other) add two pieces, where a line merge would see two different
// insertions at one place.

// pieceKind says how a piece merges.
type pieceKind int

const (
	// prosePiece is text: the description, a section of the user's. It
	// merges line by line, additions at one place on both sides kept.
	prosePiece pieceKind = iota
	// criteriaPiece is the "## Acceptance criteria" section.
	criteriaPiece
	// todosPiece is the "## Todos" heading and the steps before the first
	// phase.
	todosPiece
	// phasePiece is a phase of the Todos section: its "###" heading and
	// its steps. It is read under a "## Todos" line of its own.
	phasePiece
)

// Keys of the pieces every body has at most one of.
const (
	descriptionKey = "description"
	criteriaKey    = "criteria"
	todosKey       = "todos"
)

// piece is one part of a body.
type piece struct {
	key   string // names the piece across the sides of a merge
	kind  pieceKind
	title string // the heading, for conflict phrases
	text  []byte
}

// what names the piece in a conflict phrase.
func (p piece) what() string {
	switch p.kind {
	case criteriaPiece:
		return "the acceptance criteria"
	case todosPiece:
		return "the todos"
	case phasePiece:
		return fmt.Sprintf("the todos under %q", p.title)
	}
	if p.key == descriptionKey {
		return "the description"
	}
	return fmt.Sprintf("the section %q", p.title)
}

// splitPieces cuts a body into its pieces, in order; the description
// always comes first, empty or not.
func splitPieces(body []byte) []piece {
	hs := Headings(body)
	c := struct{ criteria, todos int }{-1, -1}
	todosEnd := len(body)
	var cuts []int // indexes into hs of the headings that start a piece
	for i, h := range hs {
		if h.Level > 2 {
			continue
		}
		cuts = append(cuts, i)
		if h.Level != 2 {
			continue
		}
		switch {
		case c.criteria < 0 && strings.EqualFold(h.Text, criteriaTitle):
			c.criteria = i
		case c.todos < 0 && strings.EqualFold(h.Text, todosTitle):
			c.todos = i
			for _, n := range hs[i+1:] {
				if n.Level <= 2 {
					todosEnd = n.Start
					break
				}
			}
		}
	}
	if c.todos >= 0 {
		// Phases: the level 3 headings inside the Todos section.
		var all []int
		for _, i := range cuts {
			all = append(all, i)
			if i != c.todos {
				continue
			}
			for j := i + 1; j < len(hs) && hs[j].Start < todosEnd; j++ {
				if hs[j].Level == 3 {
					all = append(all, j)
				}
			}
		}
		cuts = all
	}
	seen := map[string]int{}
	out := []piece{{key: descriptionKey, kind: prosePiece}}
	prev := 0
	for _, i := range cuts {
		h := hs[i]
		start := blankRunStart(body, h.Start, prev)
		out[len(out)-1].text = body[prev:start:start]
		p := piece{kind: prosePiece, title: h.Text}
		switch {
		case i == c.criteria:
			p.key, p.kind = criteriaKey, criteriaPiece
		case i == c.todos:
			p.key, p.kind = todosKey, todosPiece
		case h.Level == 3:
			p.key, p.kind = "phase\x00"+foldKey(h.Text), phasePiece
		default:
			p.key = "section\x00" + strconv.Itoa(h.Level) + "\x00" + foldKey(h.Text)
		}
		n := seen[p.key]
		seen[p.key] = n + 1
		if n > 0 {
			p.key += "\x00#" + strconv.Itoa(n)
		}
		out = append(out, p)
		prev = start
	}
	out[len(out)-1].text = body[prev:len(body):len(body)]
	return out
}

// blankRunStart returns where the blank lines that end at off begin, not
// before floor.
func blankRunStart(body []byte, off, floor int) int {
	for off > floor {
		ls := bytes.LastIndexByte(body[:off-1], '\n') + 1
		if ls < floor || !isBlank(body[ls:off]) {
			break
		}
		off = ls
	}
	return off
}

// bodyMerge is the merge of issue bodies.
type bodyMerge struct {
	// text is the merged body; where conflicts are, it holds conflict
	// markers around the lines of the pieces both sides changed.
	text []byte
	// conflicts name what both sides changed, one phrase each.
	conflicts []string
	// demoted are the todos the merge put back to pending because an
	// earlier todo in the file was in progress too.
	demoted []string
}

// mergeBody merges issue bodies piece by piece (see splitPieces). Pieces
// keep the order of the base; a piece one side added goes after the piece
// it follows on that side, after what ours added there when both sides
// added pieces at one place, and a new "Acceptance criteria" section goes
// before the Todos section, where td puts it. A piece one side deleted
// and the other left alone goes. Every piece merges by its kind, and a
// conflict in one is marked in that piece only. A body whose pieces
// cannot be matched (one side reordered them) merges line by line.
func mergeBody(o, a, b []byte) bodyMerge {
	switch {
	case bytes.Equal(a, b), bytes.Equal(b, o):
		return bodyMerge{text: a}
	case bytes.Equal(a, o):
		return bodyMerge{text: b}
	}
	if m, ok := mergePieces(o, a, b); ok {
		return m
	}
	// Joined ours first, two sides' lines can read as something neither
	// wrote (a line of theirs under a paragraph of ours is a heading's
	// underline); theirs first may not.
	if m, ok := mergePieces(o, b, a); ok && len(m.conflicts) == 0 {
		return m
	}
	text, conflict := MergeLines(o, a, b, "ours", "theirs")
	if conflict {
		return bodyMerge{text: text, conflicts: []string{"the same lines of the body (its sections could not be merged one by one)"}}
	}
	return bodyMerge{text: text}
}

// mergePieces merges the bodies piece by piece. It reports false when the
// pieces cannot be matched or their clean merge does not read back as
// those pieces in that order.
func mergePieces(o, a, b []byte) (bodyMerge, bool) {
	po, pa, pb := splitPieces(o), splitPieces(a), splitPieces(b)
	eol := dominantEOL(a)
	order, ok := mergePieceOrder(po, pa, pb)
	if !ok {
		return bodyMerge{}, false
	}
	io, ia, ib := indexPieces(po), indexPieces(pa), indexPieces(pb)
	var m bodyMerge
	var out bytes.Buffer
	var merged []piece
	var clean []bool
	for _, k := range order {
		x, y, z := io[k], ia[k], ib[k]
		like := firstPiece(y, z, x)
		text, conflicts := mergePiece(like, x, y, z, eol)
		m.conflicts = append(m.conflicts, conflicts...)
		if text == nil {
			continue
		}
		p := like
		p.text = text
		merged = append(merged, p)
		clean = append(clean, len(conflicts) == 0)
	}
	m.demoted = demoteLater(merged, clean, eol)
	for i := range merged {
		if i+1 < len(merged) && len(merged[i].text) > 0 && !bytes.HasSuffix(merged[i].text, []byte("\n")) {
			// A side's last line, without a line ending, is followed
			// by a piece the other side added.
			merged[i].text = append(bytes.Clone(merged[i].text), eol...)
		}
		out.Write(merged[i].text)
	}
	m.text = out.Bytes()
	if len(m.conflicts) == 0 && !samePieces(splitPieces(m.text), merged) {
		return bodyMerge{}, false
	}
	return m, true
}

// samePieces reports whether x and y are the same pieces with the same
// text, in order.
func samePieces(x, y []piece) bool {
	return slices.EqualFunc(x, y, func(p, q piece) bool { return p.key == q.key && bytes.Equal(p.text, q.text) })
}

// mergePieceOrder merges the order of the pieces in two levels: the
// sections (mergeOrder), then the phases within the Todos section, which
// stay in it: a phase one side added must not land after a section the
// other side added, where it would belong to that section instead.
func mergePieceOrder(o, a, b []piece) ([]string, bool) {
	split := func(ps []piece) (top, phases []string) {
		phases = []string{todosKey}
		for _, p := range ps {
			if p.kind == phasePiece {
				phases = append(phases, p.key)
			} else {
				top = append(top, p.key)
			}
		}
		return top, phases
	}
	to, fo := split(o)
	ta, fa := split(a)
	tb, fb := split(b)
	top, ok := mergeOrder(to, ta, tb, descriptionKey)
	if !ok {
		return nil, false
	}
	phases, ok := mergeOrder(fo, fa, fb, todosKey)
	if !ok {
		return nil, false
	}
	if len(phases) > 1 && !slices.Contains(top, todosKey) {
		return nil, false
	}
	var out []string
	for _, k := range top {
		out = append(out, k)
		if k == todosKey {
			out = append(out, phases[1:]...)
		}
	}
	return out, true
}

// indexPieces maps each piece's key to it.
func indexPieces(ps []piece) map[string]*piece {
	out := make(map[string]*piece, len(ps))
	for i := range ps {
		out[ps[i].key] = &ps[i]
	}
	return out
}

// firstPiece returns the first of ps that is not nil, as a value.
func firstPiece(ps ...*piece) piece {
	for _, p := range ps {
		if p != nil {
			return *p
		}
	}
	return piece{}
}

// mergeOrder merges the order of the pieces: the base's pieces in base
// order, each piece a side added after the piece before it on that side
// (after ours' additions there, for theirs'), and a criteria section that
// a side added with no Todos section before it goes just before the Todos
// section, where td puts it. A side that moved base pieces around gives
// the order when the other side changed no piece's place or presence. It
// reports false when both did. Every key of every side is in the result:
// whether a piece stays is mergePiece's to decide. Every side begins with
// first (the description, or the Todos section for its phases), and so
// does the result.
func mergeOrder(o, a, b []string, first string) ([]string, bool) {
	var out []string
	switch {
	case keepsOrder(o, a) && keepsOrder(o, b):
		out = slices.Clone(o)
		addedBy := map[string]int{}
		for side, seq := range [][]string{a, b} {
			prev := ""
			for _, k := range seq {
				if slices.Contains(out, k) {
					prev = k
					continue
				}
				pos := 0
				if prev != "" {
					pos = slices.Index(out, prev) + 1
				}
				// Theirs' additions go after ours' at the same place.
				for pos < len(out) && addedBy[out[pos]] > 0 && addedBy[out[pos]] != side+1 {
					pos++
				}
				out = slices.Insert(out, pos, k)
				addedBy[k] = side + 1
				prev = k
			}
		}
	case slices.Equal(b, o):
		out = slices.Clone(a)
	case slices.Equal(a, o):
		out = slices.Clone(b)
	default:
		return nil, false
	}
	for _, k := range o {
		if !slices.Contains(out, k) {
			out = append(out, k) // deleted by the side that reordered
		}
	}
	if !slices.Contains(o, criteriaKey) {
		for _, seq := range [][]string{a, b} {
			ci, ti := slices.Index(seq, criteriaKey), slices.Index(seq, todosKey)
			if ci >= 0 && (ti < 0 || ci < ti) {
				ci, ti = slices.Index(out, criteriaKey), slices.Index(out, todosKey)
				if ti >= 0 && ci > ti {
					out = slices.Delete(out, ci, ci+1)
					out = slices.Insert(out, ti, criteriaKey)
				}
				break
			}
		}
	}
	if len(out) == 0 || out[0] != first {
		return nil, false
	}
	return out, true
}

// mergePiece merges one piece; x, y and z are base, ours and theirs, nil
// where the side has no such piece. It returns the merged text, nil when
// the piece goes, holding conflict markers when the conflicts it returns
// are not empty.
func mergePiece(like piece, x, y, z *piece, eol string) ([]byte, []string) {
	if y == nil || z == nil {
		kept := y
		if kept == nil {
			kept = z
		}
		switch {
		case kept == nil:
			return nil, nil
		case x == nil:
			return kept.text, nil
		case bytes.Equal(kept.text, x.text):
			return nil, nil
		}
		// One side deleted the piece, the other changed it.
		var ours, theirs []byte
		if y != nil {
			ours = y.text
		} else {
			theirs = z.text
		}
		return markRegion(ours, theirs, eol), []string{like.what() + " (one side deleted it, the other changed it)"}
	}
	var base []byte
	if x != nil {
		base = x.text
	} else if h := headingLines(y.text); bytes.Equal(h, headingLines(z.text)) {
		// Both sides added the piece: its heading is theirs in common,
		// and what each wrote under it is what each added.
		base = h
	}
	if like.kind == prosePiece {
		text, conflict := mergeText(base, y.text, z.text)
		if text == nil {
			text = []byte{} // kept, empty: nil is for a piece that goes
		}
		if conflict {
			return text, []string{"the same lines of " + like.what()}
		}
		return text, nil
	}
	if x == nil && base == nil {
		// Both sides added the section under headings written
		// differently: keeping both would make two of td's sections.
		marked, conflict := MergeLines(nil, y.text, z.text, "ours", "theirs")
		if conflict {
			return marked, []string{"the same lines of " + like.what()}
		}
		return marked, nil
	}
	prefix := ""
	if like.kind == phasePiece {
		prefix = "## " + todosTitle + eol
	}
	pb, py, pz := append([]byte(prefix), base...), append([]byte(prefix), y.text...), append([]byte(prefix), z.text...)
	text, conflicts := mergeChecklist(pb, py, pz, like.what())
	if text == nil {
		// Lines both sides added at one place go ours first; where that
		// order changes what the text says (a line of theirs read as
		// part of our todo above it), theirs first may not.
		if t, c := mergeChecklist(pb, pz, py, like.what()); len(c) == 0 {
			text, conflicts = t, nil
		}
	}
	if text != nil && bytes.HasPrefix(text, []byte(prefix)) {
		// Clean, or each todo both sides changed differently marked in
		// its place.
		return text[len(prefix):], conflicts
	}
	if len(conflicts) == 0 {
		conflicts = []string{like.what()}
	}
	marked, _ := MergeLines(base, y.text, z.text, "ours", "theirs")
	return marked, conflicts
}

// headingLines returns the start of a piece up to the end of its heading:
// the blank lines before it and its line. The description has none.
func headingLines(text []byte) []byte {
	for pos := 0; pos < len(text); {
		end := lineEndAt(text, pos)
		if !isBlank(text[pos:end]) {
			if !bytes.HasPrefix(bytes.TrimLeft(text[pos:end], " "), []byte("#")) {
				return nil // a setext heading, or no heading at all
			}
			return text[:end]
		}
		pos = end
	}
	return nil
}

// markRegion writes ours and theirs between conflict markers.
func markRegion(ours, theirs []byte, eol string) []byte {
	var b bytes.Buffer
	b.WriteString("<<<<<<< ours" + eol)
	writeLines(&b, ensureEOL(splitLines(ours), eol))
	b.WriteString("=======" + eol)
	writeLines(&b, ensureEOL(splitLines(theirs), eol))
	b.WriteString(">>>>>>> theirs" + eol)
	return b.Bytes()
}

// demoteLater keeps one todo in progress, the first in file order, and
// puts every later one back to pending, as td does after each change of
// a checklist: two branches that each started a different todo merge
// into one in progress. Only pieces that merged cleanly are read. It
// returns the texts of the todos it demoted.
func demoteLater(ps []piece, clean []bool, eol string) []string {
	var demoted []string
	active := false
	for i := range ps {
		p := &ps[i]
		if p.kind == prosePiece || !clean[i] {
			continue
		}
		prefix := ""
		if p.kind == phasePiece {
			prefix = "## " + todosTitle + eol
		}
		c := ParseChecklist(append([]byte(prefix), p.text...))
		var later []int
		for j, it := range c.items {
			if it.Status != domain.TodoInProgress {
				continue
			}
			if !active {
				active = true
				continue
			}
			later = append(later, j)
		}
		if len(later) == 0 {
			continue
		}
		ok := true
		for _, j := range later {
			if c.SetStatus(j, domain.TodoPending) != nil {
				ok = false
				break
			}
		}
		if !ok || !bytes.HasPrefix(c.body, []byte(prefix)) {
			continue
		}
		for _, j := range later {
			demoted = append(demoted, c.items[j].Text)
		}
		p.text = bytes.Clone(c.body[len(prefix):])
	}
	return demoted
}
