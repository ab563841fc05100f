package exchange_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tdproject/td/repo/exchange"
	"github.com/tdproject/td/repo/repotest"
)

// beadsExport writes n beads issues as bd export does: statuses, types,
// priorities, labels, criteria, a blocks dependency on every third issue
// and a comment on every fifth.
func beadsExport(n int) []byte {
	var b bytes.Buffer
	statuses := []string{"open", "in_progress", "blocked", "closed", "deferred"}
	types := []string{"bug", "feature", "task", "chore", "epic"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"bd-%05x","title":"Issue %d: make the thing work","description":"Some text.\n\nTwo paragraphs.","status":%q,"priority":%d,"issue_type":%q,"labels":["api","web"],"acceptance_criteria":"- [ ] first\n- [x] second","created_at":"2026-01-05T09:00:00Z","updated_at":"2026-01-06T09:30:00Z"`,
			i, i, statuses[i%5], i%5, types[i%5])
		if i%3 == 0 && i > 0 {
			fmt.Fprintf(&b, `,"dependencies":[{"issue_id":"bd-%05x","depends_on_id":"bd-%05x","type":"blocks"}]`, i, i-1)
		}
		if i%5 == 0 {
			b.WriteString(`,"comments":[{"author":"bob","text":"Looked into it.","created_at":"2026-01-06T09:30:00Z"}]`)
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// BenchmarkImportBeads imports 1,000 beads issues into an empty store
// (parse, plan, write, one transaction); cmd/td measures 10,000 on the
// real binary (see td help performance).
func BenchmarkImportBeads(b *testing.B) {
	data := beadsExport(1000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := repotest.NewStore(b)
		se := repotest.Actor(b, s)
		b.StartTimer()
		p, err := exchange.ParseBeads("bench.jsonl", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		res, err := exchange.Apply(s, se, "bench.jsonl", p, exchange.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Created) != 1000 {
			b.Fatalf("created %d issues, want 1000", len(res.Created))
		}
	}
}
