package markdown

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/yuin/goldmark/ast"
)

// AnchorsHeading is the title of the section holding anchors: a level-2
// heading in an issue body, the first heading of .todos/anchors.md.
const AnchorsHeading = "Anchors"

// Anchor is one line an agent must keep in mind across compactions and
// sessions: "- critical: never push to main" under the Anchors heading.
type Anchor struct {
	Priority domain.AnchorPriority
	Text     string
	// Start and End are the item's byte range, End past its line ending.
	Start, End int
}

// ParseAnchors returns the anchors of body: the items of the lists under
// the first "Anchors" heading (any level), up to the next heading of the
// same or a higher level. An item without a known "priority:" prefix is
// normal. Items in code blocks or other sections are not anchors.
func ParseAnchors(body []byte) []Anchor {
	if !mayHoldAnchors(body) {
		return nil // no parse: most issues have no anchors section
	}
	doc, _ := parseBody(body)
	var out []Anchor
	level := 0 // the Anchors heading's level while inside its section
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if level > 0 && h.Level <= level {
				break
			}
			if level == 0 && strings.EqualFold(strings.TrimSpace(string(h.Lines().Value(body))), AnchorsHeading) {
				level = h.Level
			}
			continue
		}
		if level == 0 {
			continue
		}
		list, ok := n.(*ast.List)
		if !ok {
			continue
		}
		for it := list.FirstChild(); it != nil; it = it.NextSibling() {
			if a, ok := anchorOf(it, body); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

func anchorOf(item ast.Node, body []byte) (Anchor, bool) {
	first := item.FirstChild()
	if first == nil || first.Lines().Len() == 0 {
		return Anchor{}, false
	}
	lines := first.Lines()
	start := bytes.LastIndexByte(body[:lines.At(0).Start], '\n') + 1
	end := lineEndAt(body, lines.At(lines.Len()-1).Start)
	var parts []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(body))))
	}
	txt := strings.Join(parts, " ")
	prio := domain.AnchorNormal
	if k, v, ok := strings.Cut(txt, ":"); ok {
		if p := domain.AnchorPriority(strings.ToLower(strings.TrimSpace(k))); p.Valid() {
			prio, txt = p, strings.TrimSpace(v)
		}
	}
	return Anchor{Priority: prio, Text: txt, Start: start, End: end}, true
}

// AnchorLine is the line td writes for an anchor.
func AnchorLine(priority domain.AnchorPriority, txt string) string {
	return "- " + string(priority) + ": " + txt
}

// CheckAnchor validates an anchor before it is written: a known priority
// and one non-empty line of text.
func CheckAnchor(priority domain.AnchorPriority, txt string) error {
	if !priority.Valid() {
		return fmt.Errorf("priority %q must be one of critical, high, normal", priority)
	}
	if strings.TrimSpace(txt) == "" {
		return fmt.Errorf("an anchor needs text")
	}
	if strings.ContainsAny(txt, "\r\n") {
		return fmt.Errorf("an anchor is one line; give the text without line breaks")
	}
	return nil
}

// AddAnchor returns body with one more anchor at the end of its Anchors
// section. A body without the section gains "## Anchors" before the
// first section named in before (case-insensitive level-2 titles), or at
// its end.
func AddAnchor(body []byte, priority domain.AnchorPriority, txt string, before ...string) ([]byte, error) {
	out, err := addAnchor(body, priority, txt, before)
	if err != nil {
		return nil, err
	}
	// Re-read: markdown around the insertion (an unclosed fence, an HTML
	// block) could swallow the new line; refuse rather than write it.
	want := len(ParseAnchors(body)) + 1
	got := ParseAnchors(out)
	found := false
	for _, a := range got {
		if a.Priority == priority && a.Text == strings.TrimSpace(txt) {
			found = true
		}
	}
	if len(got) != want || !found {
		return nil, fmt.Errorf("the markdown around the Anchors section would swallow a new anchor line; fix the section by hand")
	}
	return out, nil
}

func addAnchor(body []byte, priority domain.AnchorPriority, txt string, before []string) ([]byte, error) {
	if err := CheckAnchor(priority, txt); err != nil {
		return nil, err
	}
	txt = strings.TrimSpace(txt)
	eol := dominantEOL(body)
	if len(body) == 0 {
		eol = "\n"
	}
	line := AnchorLine(priority, txt) + eol
	if list := ParseAnchors(body); len(list) > 0 {
		at := list[len(list)-1].End
		return splice(body, at, ensureNewlineBefore(body, at, eol)+line), nil
	}
	if h, ok := anchorsHeading(body); ok {
		// The list goes at the end of the section, after any prose in it.
		at := len(body)
		for _, n := range Headings(body) {
			if n.Start >= h.End && n.Level <= h.Level {
				at = n.Start
				break
			}
		}
		for at > h.End && (body[at-1] == '\n' || body[at-1] == '\r') {
			at--
		}
		if at < len(body) && body[at] == '\r' {
			at++
		}
		if at < len(body) && body[at] == '\n' {
			at++
		}
		ins := ensureNewlineBefore(body, at, eol) + eol + line
		if at < len(body) && !bytes.HasPrefix(body[at:], []byte(eol)) {
			ins += eol
		}
		return splice(body, at, ins), nil
	}
	section := "## " + AnchorsHeading + eol + eol + line
	for _, h := range Headings(body) {
		if h.Level == 2 && containsFold(before, strings.TrimSpace(h.Text)) {
			return splice(body, h.Start, section+eol), nil
		}
	}
	prefix := ensureNewlineBefore(body, len(body), eol)
	if len(bytes.TrimSpace(body)) > 0 && !bytes.HasSuffix(body, []byte(eol+eol)) {
		prefix += eol
	}
	return splice(body, len(body), prefix+section), nil
}

// RemoveAnchor returns body without the anchor a (as ParseAnchors found it).
func RemoveAnchor(body []byte, a Anchor) []byte {
	out := make([]byte, 0, len(body))
	out = append(out, body[:a.Start]...)
	return append(out, body[a.End:]...)
}

func anchorsHeading(body []byte) (Heading, bool) {
	for _, h := range Headings(body) {
		if strings.EqualFold(strings.TrimSpace(h.Text), AnchorsHeading) {
			return h, true
		}
	}
	return Heading{}, false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func ensureNewlineBefore(body []byte, at int, eol string) string {
	if at > 0 && body[at-1] != '\n' {
		return eol
	}
	return ""
}

func splice(body []byte, at int, ins string) []byte {
	out := make([]byte, 0, len(body)+len(ins))
	out = append(out, body[:at]...)
	out = append(out, ins...)
	return append(out, body[at:]...)
}

// mayHoldAnchors reports whether body could hold the anchors heading: its
// text, compared with strings.EqualFold, needs the letters of "anchor" in
// order, and none of them has a case partner outside ASCII, so a body
// whose lowered bytes lack "anchor" has no such heading. Every harness
// start builds an issue's context, and a parse of the body only to find
// no section cost as much as the checklist's.
func mayHoldAnchors(body []byte) bool {
	return bytes.Contains(bytes.ToLower(body), []byte("anchor"))
}
