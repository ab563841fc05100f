package exchange

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// markers are the checklist markers td writes for each todo status.
var markers = map[domain.TodoStatus]string{
	domain.TodoPending: " ", domain.TodoInProgress: "/", domain.TodoCompleted: "x",
	domain.TodoAbandoned: "-", domain.TodoBlocked: "!",
}

// renderBody writes a record's body in td's canonical form: the
// description, the record's other sections, the acceptance criteria and
// the todos (grouped by phase). td's own export brings its body whole.
func renderBody(r *Record) string {
	if r.HasBody {
		return r.Body
	}
	var b strings.Builder
	if d := strings.TrimSpace(normalizeEOL(r.Description)); d != "" {
		b.WriteString("\n" + d + "\n")
	}
	for _, sec := range r.Sections {
		t := strings.TrimSpace(normalizeEOL(sec.Text))
		if t == "" {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", oneLine(sec.Title), t)
	}
	seen := map[string]int{}
	if len(r.Criteria) > 0 {
		b.WriteString("\n## Acceptance criteria\n\n")
		for _, it := range r.Criteria {
			writeItem(&b, it, seen)
		}
	}
	if len(r.Todos) > 0 {
		b.WriteString("\n## Todos\n")
		phase := "\x00"
		for i, it := range r.Todos {
			if it.Phase != phase {
				if it.Phase != "" {
					fmt.Fprintf(&b, "\n### %s\n", oneLine(it.Phase))
				}
				phase = it.Phase
				b.WriteString("\n")
			} else if i == 0 {
				b.WriteString("\n")
			}
			writeItem(&b, it, seen)
		}
	}
	return b.String()
}

// checklistReadsBack reports whether body, rendered for r, reads back
// with r's criteria and todos: a description whose markdown runs on (an
// HTML block or a code fence never closed) would swallow the sections
// after it, and such a record is refused rather than written without
// its checklist.
func checklistReadsBack(r *Record, body []byte) bool {
	if r.HasBody {
		return true
	}
	var crit, steps int
	for _, it := range markdown.ParseChecklist(body).Items() {
		if it.Kind == domain.KindCriterion {
			crit++
		} else {
			steps++
		}
	}
	return crit == len(r.Criteria) && steps == len(r.Todos)
}

// writeItem writes one checklist item with its notes. Todo texts are
// unique within an issue: a repeated text gets " (2)", " (3)", ...
func writeItem(b *strings.Builder, it Item, seen map[string]int) {
	text := itemText(it.Text)
	key := strings.ToLower(text)
	seen[key]++
	if n := seen[key]; n > 1 {
		text = fmt.Sprintf("%s (%d)", text, n)
	}
	m, ok := markers[it.Status]
	if !ok {
		m = " "
	}
	fmt.Fprintf(b, "- [%s] %s\n", m, text)
	for _, n := range it.Notes {
		if n = oneLine(n); n != "" {
			fmt.Fprintf(b, "  > %s\n", n)
		}
	}
}

// itemText makes a todo's text one line: td's todos are addressed by a
// one-line text.
func itemText(s string) string {
	t := oneLine(s)
	if t == "" {
		return "(empty)"
	}
	return t
}

func normalizeEOL(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
