package exchange_test

import (
	"bytes"
	"testing"

	"github.com/tdproject/td/repo/exchange"
	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/repotest"
)

// BenchmarkImportBeads imports 1,000 beads issues into an empty store
// (parse, plan, write, one transaction); cmd/td measures 10,000 on the
// real binary (see td help performance).
func BenchmarkImportBeads(b *testing.B) {
	var buf bytes.Buffer
	if err := gen.BeadsJSONL(&buf, 1000); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
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
