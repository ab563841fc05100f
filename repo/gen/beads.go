package gen

import (
	"bufio"
	"fmt"
	"io"
)

// BeadsJSONL writes n issues as beads' JSONL export (bd export) writes
// them, one a line, for the import benchmarks: every status, type and
// priority, labels, a description and design, two acceptance criteria,
// a blocks dependency on every third issue, a parent-child dependency on
// every tenth, a comment on every fifth and a close reason on the closed
// ones. The same n writes the same bytes.
func BeadsJSONL(w io.Writer, n int) error {
	b := bufio.NewWriterSize(w, 64<<10)
	statuses := []string{"open", "in_progress", "blocked", "closed", "deferred"}
	types := []string{"bug", "feature", "task", "chore", "epic"}
	for i := 0; i < n; i++ {
		st := statuses[i%5]
		fmt.Fprintf(b, `{"id":"bd-%05x","title":"Issue %d: make the webhook retries work","description":"Some text about issue %d.\n\nA second paragraph with more words in it.","design":"Retry with backoff.","status":%q,"priority":%d,"issue_type":%q,"assignee":"dev%d","labels":["api","web"],"acceptance_criteria":"- [ ] first criterion of %d\n- [x] second criterion of %d","created_at":"2026-01-05T09:00:00Z","updated_at":"2026-01-06T09:30:00Z","estimated_minutes":%d`,
			i, i, i, st, i%5, types[i%5], i%7, i, i, 30+i%90)
		if st == "closed" {
			b.WriteString(`,"closed_at":"2026-01-06T09:30:00Z","close_reason":"Done"`)
		}
		var deps []string
		if i%3 == 0 && i > 0 {
			deps = append(deps, fmt.Sprintf(`{"issue_id":"bd-%05x","depends_on_id":"bd-%05x","type":"blocks"}`, i, i-1))
		}
		if i%10 == 5 {
			deps = append(deps, fmt.Sprintf(`{"issue_id":"bd-%05x","depends_on_id":"bd-%05x","type":"parent-child"}`, i, i-5))
		}
		if len(deps) > 0 {
			b.WriteString(`,"dependencies":[`)
			for k, d := range deps {
				if k > 0 {
					b.WriteString(",")
				}
				b.WriteString(d)
			}
			b.WriteString("]")
		}
		if i%5 == 0 {
			fmt.Fprintf(b, `,"comments":[{"id":%d,"issue_id":"bd-%05x","author":"bob","text":"Looked into it.","created_at":"2026-01-06T09:30:00Z"}]`, i, i)
		}
		b.WriteString("}\n")
	}
	return b.Flush()
}
