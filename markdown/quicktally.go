package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tdproject/td/policy/domain"
)

// QuickTally counts a body's checklist as Summarize(ParseChecklist(body).
// Items()) does, without its Active item, by reading the body line by line
// instead of parsing it, when the body keeps to the plain shape td writes:
// ATX headings, paragraphs, "- " list items at the left margin and, under
// them, indented text, notes and nested lists. It reports false for any
// other body (a fence, HTML, a block quote or an ordered list at the
// margin, a setext underline or a thematic break, a tab, a carriage
// return, a heading with markup, a body that could reach the parser's
// limits), which the caller then parses. The cache of a fresh clone counts
// the checklist of every issue; the parse was half the cost of building it.
//
// Only three things decide the counts: where the level-1 and level-2
// headings are (they bound the two sections), which lines open a list
// item at the margin, and each such item's "[c]" marker. In the shape
// accepted, every line at the margin that starts "- " opens an item of a
// top-level list, and no other line does; FuzzQuickTally holds this to the
// parse.
func QuickTally(body []byte) (domain.Summary, bool) {
	var s domain.Summary
	if len(body) > MaxBlocks/2 || !cannotReachLimits(body) || !utf8.Valid(body) ||
		bytes.Contains(body, []byte("```")) || bytes.Contains(body, []byte("~~~")) {
		return s, false
	}
	for _, c := range body {
		if c < 0x20 && c != '\n' || c == 0x7f {
			return s, false
		}
	}
	var (
		section = -1 // secCriteria, secTodos or -1
		seen    [2]bool
		inItem  bool // the last block at the margin is a list whose last item is open
		blank   bool // the line before was blank
		// lazy: the line before was an item's first line at the margin, or
		// text continuing it there, so that text at the margin continues
		// that item's paragraph (a lazy continuation line).
		lazy bool
	)
	for len(body) > 0 {
		var line []byte
		line, body, _ = bytes.Cut(body, []byte("\n"))
		content := bytes.TrimLeft(line, " ")
		if len(content) == 0 {
			blank = true
			continue
		}
		if breakOrUnderline(content) {
			return s, false
		}
		indent := len(line) - len(content)
		wasLazy := lazy
		lazy = false
		switch {
		case indent > 0:
			// Inside the open item, whose content starts at column 2:
			// its text, notes, nested lists and code change no count.
			// One space would be a sibling item or a heading at the root.
			if !inItem || indent < 2 || content[0] == '<' {
				return s, false
			}
		case content[0] == '#':
			level := 0
			for level < len(content) && content[level] == '#' {
				level++
			}
			if level > 6 || level < len(content) && content[level] != ' ' {
				return s, false
			}
			text := strings.TrimSpace(string(content[level:]))
			if text == "" || strings.ContainsAny(text, "#\\") {
				return s, false
			}
			inItem = false
			if level <= 2 {
				section = -1
				k := -1
				switch {
				case level == 1:
				case strings.EqualFold(text, criteriaTitle):
					k = secCriteria
				case strings.EqualFold(text, todosTitle):
					k = secTodos
				}
				if k >= 0 && !seen[k] {
					seen[k], section = true, k
				}
			}
		case bytes.HasPrefix(content, []byte("- ")):
			rest := content[2:]
			if len(rest) == 0 {
				return s, false
			}
			if len(rest) >= 3 && rest[0] == '[' && rest[2] == ']' && statusOf(rest[1]) != "" && (len(rest) == 3 || rest[3] == ' ') {
				if section >= 0 {
					t := domain.Todo{Status: statusOf(rest[1]), Kind: domain.KindStep}
					if section == secCriteria {
						t.Kind = domain.KindCriterion
					}
					s.Add(t)
				}
			} else if !plainStart(rest[0]) && rest[0] != '[' || orderedStart(rest) {
				return s, false
			}
			inItem, lazy = true, true
		default:
			if !plainStart(content[0]) || orderedStart(content) {
				return s, false
			}
			// Right under an item's text, a lazy continuation of it; after
			// a blank line, a paragraph that ends the list. Under anything
			// else of an item (a note, a nested list, code) it would take
			// the parse to tell.
			switch {
			case blank || !inItem:
				inItem = false
			case wasLazy:
				lazy = true
			default:
				return s, false
			}
		}
		blank = false
	}
	s.Active = nil
	return s, true
}

// breakOrUnderline reports a line (without its indentation) made only of
// '=', '-', '*', '_' and spaces: a setext heading's underline, a thematic
// break, an empty list item, which QuickTally leaves to the parser.
func breakOrUnderline(content []byte) bool {
	for _, c := range content {
		if c != '=' && c != '-' && c != '*' && c != '_' && c != ' ' {
			return false
		}
	}
	return true
}

// plainStart reports a first character that cannot open any block but a
// paragraph: a letter, a digit (see orderedStart), an opening quote or
// parenthesis, or any character outside ASCII.
func plainStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '(' || c == '"' || c == '\'' || c >= utf8.RuneSelf
}

// orderedStart reports a line that opens an ordered list item: up to nine
// digits, '.' or ')', then a space or the line's end.
func orderedStart(content []byte) bool {
	n := 0
	for n < len(content) && n < 10 && '0' <= content[n] && content[n] <= '9' {
		n++
	}
	if n == 0 || n > 9 || n >= len(content) || content[n] != '.' && content[n] != ')' {
		return false
	}
	return n+1 == len(content) || content[n+1] == ' '
}
