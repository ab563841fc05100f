package command

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/board"
)

// The terminal board's geometry: the space between columns, the narrowest
// a column may be, and so the narrowest terminal that shows the columns
// side by side (a narrower one gets the sections a pipe gets).
const (
	boardGap      = 2
	boardMinCol   = 12
	boardMinWidth = 5*boardMinCol + 4*boardGap
	// boardBarMax is the widest a progress bar grows.
	boardBarMax = 10
)

// boardEmpty is what td board says when no card is on it.
const boardEmpty = "No issues on the board.\n"

// boardCards counts the cards on a board.
func boardCards(b *board.Board) int {
	n := 0
	for _, c := range b.Columns {
		n += len(c.Cards)
	}
	return n
}

// boardHeading is a column's heading in the sections: its title, which
// for the closed one says how far back it looks (board.ClosedTitle).
func boardHeading(b *board.Board, c board.Column) string {
	return c.Title
}

// counted is "1 open criterion", "2 open criteria" and the like.
func counted(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// boardSections is the board for a pipe, or a terminal too narrow for
// columns: one section per column, a card on one line with its details
// indented below, no box drawing and (without colour) no escape codes;
// limit, when above 0, is the most cards a section shows.
func (s *streams) boardSections(b *board.Board, limit int) string {
	if boardCards(b) == 0 {
		return boardEmpty
	}
	var out strings.Builder
	out.Grow(boardCards(b) * 100)
	for i, c := range b.Columns {
		if i > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "%s (%d)\n", s.paint(ansiBold, boardHeading(b, c)), len(c.Cards))
		if len(c.Cards) == 0 {
			out.WriteString("  none\n")
			continue
		}
		cards := c.Cards
		if limit > 0 && len(cards) > limit {
			cards = cards[:limit]
		}
		for _, k := range cards {
			// Written piece by piece: a board of thousands of cards is
			// printed in a few milliseconds that fmt would triple.
			out.WriteString("  ")
			out.WriteString(s.paint(ansiBold, k.ID))
			out.WriteString("  ")
			out.WriteString(s.priority(k.Priority))
			out.WriteString("  ")
			out.WriteString(k.Type)
			out.WriteString(strings.Repeat(" ", max(7-len(k.Type), 0)+2))
			out.WriteString(safe(k.Title))
			if len(k.Labels) > 0 {
				out.WriteString("  ")
				out.WriteString(s.paint(ansiDim, "["+strings.Join(safeAll(k.Labels), ", ")+"]"))
			}
			out.WriteByte('\n')
			sep := "      "
			detail := func(parts ...string) {
				out.WriteString(sep)
				for _, p := range parts {
					out.WriteString(p)
				}
				sep = "; "
			}
			if k.Assignee != "" {
				detail(safe(k.Assignee))
			}
			if k.Total > 0 {
				detail(strconv.Itoa(k.Done), "/", strconv.Itoa(k.Total), " done")
			}
			if k.OpenCriteria > 0 {
				detail(strconv.Itoa(k.OpenCriteria), " ", plural(k.OpenCriteria, "open criterion", "open criteria"))
			}
			if k.Children > 0 {
				detail("children ", strconv.Itoa(k.ChildrenClosed), "/", strconv.Itoa(k.Children), " closed")
				if k.ChildrenUnreadable > 0 {
					detail(strconv.Itoa(k.ChildrenUnreadable), " unreadable (td doctor)")
				}
			}
			if sep != "      " {
				out.WriteByte('\n')
			}
			if k.Claim != "" {
				out.WriteString("      ")
				out.WriteString(s.paint(ansiDim, safe(k.Claim)))
				out.WriteByte('\n')
			}
		}
		if n := len(c.Cards) - len(cards); n > 0 {
			fmt.Fprintf(&out, "  %d more: td board --limit 0 shows all\n", n)
		}
	}
	return out.String()
}

// priority paints the most urgent priorities.
func (s *streams) priority(p string) string {
	switch p {
	case string(domain.P0):
		return s.paint(ansiRed, p)
	case string(domain.P1):
		return s.paint(ansiYellow, p)
	}
	return p
}

// cell is one line of a board column: its text as printed (painted when
// colour is on) and how many terminal cells it takes.
type cell struct {
	text  string
	width int
}

// boardColumns is the board for a terminal width columns wide (at least
// boardMinWidth): the five columns side by side, each card a few lines
// cut to the column's width, cards apart by a blank line; limit, when
// above 0, is the most cards a column shows.
func (s *streams) boardColumns(b *board.Board, width, limit int) string {
	if boardCards(b) == 0 {
		return boardEmpty
	}
	n := len(b.Columns)
	cw := (width - boardGap*(n-1)) / n
	cols := make([][]cell, n)
	for i, c := range b.Columns {
		cols[i] = s.boardColumn(c, cw, limit)
	}
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	var out strings.Builder
	for r := range rows {
		last := -1 // the last column with something on this row
		for i, c := range cols {
			if r < len(c) && c[r].width > 0 {
				last = i
			}
		}
		for i := 0; i <= last; i++ {
			var c cell
			if r < len(cols[i]) {
				c = cols[i][r]
			}
			out.WriteString(c.text)
			if i < last {
				out.WriteString(strings.Repeat(" ", cw-c.width+boardGap))
			}
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// boardColumn lays out one column's lines, cw cells wide.
func (s *streams) boardColumn(c board.Column, cw, limit int) []cell {
	plain := func(style, text string) cell {
		t, w := fit(text, cw)
		return cell{s.paint(style, t), w}
	}
	head := choose(cw, fmt.Sprintf("%s (%d)", c.Title, len(c.Cards)), fmt.Sprintf("%s (%d)", shortTitle(c), len(c.Cards)), fmt.Sprintf("%s (%d)", strings.Fields(shortTitle(c))[0], len(c.Cards)))
	lines := []cell{plain(ansiBold+columnColor(c.Key), head), plain(ansiDim, strings.Repeat("─", cw))}
	if len(c.Cards) == 0 {
		return append(lines, plain(ansiDim, "none"))
	}
	cards := c.Cards
	if limit > 0 && len(cards) > limit {
		cards = cards[:limit]
	}
	for i, k := range cards {
		if i > 0 {
			lines = append(lines, cell{})
		}
		id, idw := fit(k.ID, cw)
		first := cell{s.paint(ansiBold, id), idw}
		if idw+1+len(k.Priority) <= cw {
			first.text += " " + s.priority(k.Priority)
			first.width += 1 + len(k.Priority)
		}
		lines = append(lines, first)
		for _, t := range wrap(safe(k.Title), cw, 2) {
			lines = append(lines, plain("", t))
		}
		if k.Assignee != "" {
			lines = append(lines, plain("", safe(k.Assignee)))
		}
		if k.Total > 0 {
			lines = append(lines, s.progress(k.Done, k.Total, cw))
		}
		if k.OpenCriteria > 0 {
			lines = append(lines, plain("", choose(cw, counted(k.OpenCriteria, "open criterion", "open criteria"),
				counted(k.OpenCriteria, "open crit.", "open crit."), fmt.Sprintf("crit. %d", k.OpenCriteria))))
		}
		if k.Children > 0 {
			lines = append(lines, plain("", choose(cw, fmt.Sprintf("children %d/%d closed", k.ChildrenClosed, k.Children),
				fmt.Sprintf("children %d/%d", k.ChildrenClosed, k.Children), fmt.Sprintf("kids %d/%d", k.ChildrenClosed, k.Children))))
			if k.ChildrenUnreadable > 0 {
				lines = append(lines, plain("", choose(cw, fmt.Sprintf("%d unreadable (td doctor)", k.ChildrenUnreadable),
					fmt.Sprintf("%d unreadable", k.ChildrenUnreadable), fmt.Sprintf("%d bad", k.ChildrenUnreadable))))
			}
		}
		if k.Claim != "" {
			for _, t := range wrap(safe(k.Claim), cw, 4) {
				lines = append(lines, plain(ansiDim, t))
			}
		}
	}
	if more := len(c.Cards) - len(cards); more > 0 {
		lines = append(lines, cell{}, plain(ansiDim, fmt.Sprintf("+ %d more", more)))
	}
	return lines
}

// progress is "3/7", followed by a bar filling the rest of the line (up to
// boardBarMax) when colour is on.
func (s *streams) progress(done, total, cw int) cell {
	text := fmt.Sprintf("%d/%d", done, total)
	c := cell{text, len(text)}
	bar := min(cw-c.width-1, boardBarMax)
	if !s.color || bar < 3 {
		return c
	}
	filled := (bar*done + total/2) / total
	c.text += " "
	if filled > 0 {
		c.text += s.paint(ansiGreen, strings.Repeat("█", filled))
	}
	if filled < bar {
		c.text += s.paint(ansiDim, strings.Repeat("░", bar-filled))
	}
	c.width += 1 + bar
	return c
}

// shortTitle is a column's title for a narrow column.
func shortTitle(c board.Column) string {
	switch domain.Status(c.Key) {
	case domain.StatusInProgress:
		return "Started"
	case domain.StatusInReview:
		return "Review"
	case domain.StatusClosed:
		// "Closed, last 7 days" in short: "Closed 7d".
		var n int
		if _, err := fmt.Sscanf(c.Title, "Closed, last %d days", &n); err == nil {
			return fmt.Sprintf("Closed %dd", n)
		}
		if c.Title == board.ClosedTitle(1) {
			return "Closed 1d"
		}
	}
	return c.Title
}

// columnColor is the colour of a column's heading: its status's.
func columnColor(key string) string {
	switch domain.Status(key) {
	case domain.StatusInProgress:
		return ansiYellow
	case domain.StatusBlocked:
		return ansiRed
	case domain.StatusInReview:
		return ansiCyan
	case domain.StatusClosed:
		return ansiGreen
	}
	return ""
}

// choose is the first of the texts that fits in w cells, else the last.
func choose(w int, texts ...string) string {
	for _, t := range texts {
		if textWidth(t) <= w {
			return t
		}
	}
	return texts[len(texts)-1]
}

// wrap breaks text into at most lines lines of w cells, at spaces where
// it can; what does not fit is cut, the last line ending in "…".
func wrap(text string, w, lines int) []string {
	var out []string
	for text != "" && len(out) < lines {
		if textWidth(text) <= w {
			out = append(out, text)
			text = ""
			break
		}
		if len(out) == lines-1 {
			t, _ := fit(text, w)
			out = append(out, t)
			text = ""
			break
		}
		// The longest head of text that fits, ended at a space if one is
		// past the line's first third.
		cut, used, space := 0, 0, -1
		for i, r := range text {
			rw := runeWidth(r)
			if used+rw > w {
				break
			}
			used += rw
			cut = i + utf8.RuneLen(r)
			if r == ' ' && used > w/3 {
				space = i
			}
		}
		if cut < len(text) && text[cut] == ' ' {
			space = cut // the line ends just before a space
		}
		if space > 0 {
			out = append(out, strings.TrimRight(text[:space], " "))
			text = strings.TrimLeft(text[space:], " ")
		} else {
			out = append(out, text[:cut])
			text = text[cut:]
		}
	}
	return out
}

// fit cuts text to w cells, ending it with "…" when it had to; it returns
// the text and its width.
func fit(text string, w int) (string, int) {
	tw := textWidth(text)
	if tw <= w {
		return text, tw
	}
	used := 0
	for i, r := range text {
		rw := runeWidth(r)
		if used+rw > w-1 {
			head := strings.TrimRight(text[:i], " ")
			return head + "…", used - (len(text[:i]) - len(head)) + 1
		}
		used += rw
	}
	return text, tw
}

// textWidth is how many terminal cells text takes.
func textWidth(text string) int {
	n := 0
	for _, r := range text {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is how many terminal cells r takes: none for a combining mark
// or a format character, two for the wide characters of East Asian
// scripts and most emoji, one otherwise.
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1F64F, r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
