package exchange_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/exchange"
	"github.com/tdproject/td/repo/gen"
	"github.com/tdproject/td/repo/repotest"
)

// TestExportEachStreamsInOrder: the export hands every readable issue to
// its caller once, in the order of IDs, batch after batch, and reports an
// unreadable file instead of handing it.
func TestExportEachStreamsInOrder(t *testing.T) {
	var buf bytes.Buffer
	if err := gen.BeadsJSONL(&buf, 40); err != nil {
		t.Fatal(err)
	}
	s := repotest.NewStore(t)
	p, err := exchange.ParseBeads("gen.jsonl", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exchange.Apply(s, repotest.Actor(t, s), "gen.jsonl", p, exchange.Options{}); err != nil {
		t.Fatal(err)
	}
	ids, err := s.IssueIDs()
	if err != nil || len(ids) != 40 {
		t.Fatalf("%d issues, %v", len(ids), err)
	}
	bad := ids[17]
	if err := os.WriteFile(s.Path(repo.IssuesDir, bad+".md"), []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer exchange.SetExportBatch(7)()
	var got []string
	problems, err := exchange.ExportEach(s, func(is *exchange.ExportedIssue) error {
		got = append(got, is.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Delete(slices.Clone(ids), 17, 18)
	if !slices.Equal(got, want) {
		t.Fatalf("exported %v\nwant %v", got, want)
	}
	if len(problems) != 1 {
		t.Fatalf("problems %v, want the one unreadable file", problems)
	}
}
