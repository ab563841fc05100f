package help

import (
	"strings"
	"unicode/utf8"
)

// Indentation of the rendered page: prose sits under its heading, code
// blocks further in, as a man page or td's command help lays them out.
const (
	textIndent = "   "
	codeIndent = "      "
)

// Render turns a topic's markdown into plain text for a terminal. Headings
// lose their # marks (level 2 in capitals, like the sections of td's
// command help); prose and lists are indented and lose backticks and **
// emphasis; fenced code blocks are indented further and kept verbatim;
// tables are aligned in columns. Nothing is wrapped: a line of the page is
// a line of the output.
func Render(md string) string {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenceIndent := len(line) - len(trimmed)
			for i++; i < len(lines); i++ {
				l := lines[i]
				if strings.HasPrefix(strings.TrimLeft(l, " "), "```") {
					break
				}
				writeLine(&b, codeIndent, cutIndent(l, fenceIndent))
			}
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := strings.TrimSpace(line[level:])
			if level == 2 {
				writeLine(&b, "", inline(text, strings.ToUpper))
			} else {
				writeLine(&b, "", Inline(text))
			}
		case strings.HasPrefix(trimmed, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[j], " "), "|") {
				j++
			}
			writeTable(&b, lines[i:j])
			i = j - 1
		case trimmed == "":
			b.WriteString("\n")
		default:
			writeLine(&b, textIndent, Inline(line))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeLine writes one line with its indent, the indent left off a blank
// line so the output carries no trailing spaces.
func writeLine(b *strings.Builder, indent, text string) {
	text = strings.TrimRight(text, " \t")
	if text != "" {
		b.WriteString(indent)
		b.WriteString(text)
	}
	b.WriteString("\n")
}

// cutIndent removes up to n leading spaces: a code block inside a list
// item is indented in the source by the item's indent, which the rendered
// page replaces with its own.
func cutIndent(line string, n int) string {
	for n > 0 && strings.HasPrefix(line, " ") {
		line = line[1:]
		n--
	}
	return line
}

// writeTable aligns a markdown table's cells in columns, two spaces apart,
// and drops the row of dashes under the header.
func writeTable(b *strings.Builder, rows []string) {
	var cells [][]string
	var widths []int
	for _, row := range rows {
		cs := splitRow(row)
		if isDelimiterRow(cs) {
			continue
		}
		for k, c := range cs {
			c = Inline(c)
			cs[k] = c
			if k == len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], utf8.RuneCountInString(c))
		}
		cells = append(cells, cs)
	}
	for _, cs := range cells {
		var line strings.Builder
		for k, c := range cs {
			line.WriteString(c)
			if k < len(cs)-1 {
				line.WriteString(strings.Repeat(" ", widths[k]-utf8.RuneCountInString(c)+2))
			}
		}
		writeLine(b, textIndent, line.String())
	}
}

// splitRow splits "| a | b \| c |" into its trimmed cells; an escaped
// pipe belongs to its cell, unescaped, as GitHub reads it even in a code
// span.
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func isDelimiterRow(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// Inline removes inline markdown from one line of prose: a code span
// keeps its text without the backticks, ** emphasis marks go,
// [text](url) becomes "text (url)", and \| and \* become the character.
// Text inside a code span is kept as it is, so `**` or `*` there survive.
func Inline(s string) string { return inline(s, nil) }

// inline is Inline with a transformation of the prose around code spans
// (a heading in capitals keeps its paths and commands as they are).
func inline(s string, prose func(string) string) string {
	if prose == nil {
		prose = func(s string) string { return s }
	}
	var b, text strings.Builder
	flush := func() {
		b.WriteString(prose(text.String()))
		text.Reset()
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			n := runLen(s[i:], '`')
			end := strings.Index(s[i+n:], strings.Repeat("`", n))
			if end < 0 {
				text.WriteString(s[i : i+n])
				i += n
				continue
			}
			code := s[i+n : i+n+end]
			if n > 1 {
				code = strings.TrimSpace(code)
			}
			flush()
			b.WriteString(code)
			i += n + end + n
		case strings.HasPrefix(s[i:], "**"):
			i += 2
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("|*_`[]", s[i+1]) >= 0:
			text.WriteByte(s[i+1])
			i += 2
		case s[i] == '[':
			if label, url, n, ok := link(s[i:]); ok {
				flush()
				b.WriteString(inline(label, prose))
				b.WriteString(" (" + url + ")")
				i += n
				continue
			}
			text.WriteByte(s[i])
			i++
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	flush()
	return b.String()
}

func runLen(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// link reads "[text](url)" at the start of s.
func link(s string) (text, url string, n int, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 || strings.ContainsAny(s[1:close], "[]") {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 || strings.ContainsAny(s[close+2:close+2+end], " ") {
		return "", "", 0, false
	}
	return s[1:close], s[close+2 : close+2+end], close + 2 + end + 1, true
}
