package markdown

import (
	"bytes"
	"strings"
)

// Heading is a top-level ATX or setext heading of a markdown body, as found
// by goldmark: never one inside a code block, an HTML block, a list or a
// block quote.
type Heading struct {
	// Level is 1 to 6.
	Level int
	// Text is the heading's raw inline text, trimmed; the lines of a
	// multi-line setext heading are joined with "\n".
	Text string
	// Start and End are byte offsets in the body of the heading's whole
	// line or lines, End exclusive and including the final line ending.
	Start, End int
}

// Headings returns the top-level headings of body in order.
func Headings(body []byte) []Heading {
	doc, _ := parseBody(body)
	return headingsOf(doc, body)
}

// DescriptionEnd returns the offset in body where the free description
// ends: the start of the first level-2 heading titled "Anchors",
// "Acceptance criteria" or "Todos" (case-insensitive, trimmed), or
// len(body) if there is none.
func DescriptionEnd(body []byte) int {
	for _, h := range Headings(body) {
		if h.Level != 2 {
			continue
		}
		t := strings.TrimSpace(h.Text)
		if strings.EqualFold(t, AnchorsHeading) || strings.EqualFold(t, "Acceptance criteria") || strings.EqualFold(t, "Todos") {
			return h.Start
		}
	}
	return len(body)
}

// lineEndAt returns the offset just past the line holding offset off,
// including its "\n".
func lineEndAt(b []byte, off int) int {
	if off >= len(b) {
		return len(b)
	}
	if i := bytes.IndexByte(b[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(b)
}

// isATX reports whether line opens an ATX heading: up to three spaces, one
// to six '#', then a space, a tab or the end of the line.
func isATX(line []byte) bool {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	if n < 1 || n > 6 {
		return false
	}
	return i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'
}
