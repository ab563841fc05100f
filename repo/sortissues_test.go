package repo

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// TestSortIssuesAsItsRule holds SortIssues' keys to the rule they
// encode: priority as a string, then creation time, then ID.
func TestSortIssuesAsItsRule(t *testing.T) {
	rule := func(a, b *Issue) int {
		if c := strings.Compare(string(a.Priority), string(b.Priority)); c != 0 {
			return c
		}
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	prios := []domain.Priority{"P0", "P1", "P2", "P4", "", "P1\x00", "P", "P10", "urgent-and-more", "urgent-and-less", "P2\x00\x00\x00\x00\x00\x00\x00"}
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	times := []time.Time{{}, base, base.Add(time.Nanosecond), base.Add(-time.Hour), time.Date(1200, 1, 1, 0, 0, 0, 5, time.UTC), base.In(time.FixedZone("x", 3600))}
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var list []*Issue
		for i := 0; i < 1+r.IntN(60); i++ {
			is := &Issue{}
			is.ID = "td-" + string(rune('a'+r.IntN(5))) + string(rune('a'+r.IntN(5)))
			is.Priority = prios[r.IntN(len(prios))]
			is.CreatedAt = times[r.IntN(len(times))]
			list = append(list, is)
		}
		want := slices.Clone(list)
		slices.SortStableFunc(want, rule)
		got := slices.Clone(list)
		SortIssues(got)
		for i := range got {
			if rule(got[i], want[i]) != 0 {
				t.Fatalf("round %d: position %d holds %q %q %v, want %q %q %v", round, i, got[i].Priority, got[i].ID, got[i].CreatedAt, want[i].Priority, want[i].ID, want[i].CreatedAt)
			}
		}
		// The first n alone, for every n: what a page of td list shows.
		for n := -1; n <= len(list)+1; n++ {
			in := slices.Clone(list)
			first := SortFirst(in, n)
			wantN := len(list)
			if n > 0 && n < len(list) {
				wantN = n
			}
			if len(first) != wantN {
				t.Fatalf("round %d: SortFirst(%d of %d) gave %d", round, n, len(list), len(first))
			}
			for i := range first {
				if rule(first[i], want[i]) != 0 {
					t.Fatalf("round %d: SortFirst(%d): position %d holds %q %q %v, want %q %q %v", round, n, i, first[i].Priority, first[i].ID, first[i].CreatedAt, want[i].Priority, want[i].ID, want[i].CreatedAt)
				}
			}
			if n > 0 && n < len(list) && !slices.Equal(in, list) {
				t.Fatalf("round %d: SortFirst(%d) reordered the list it was given", round, n)
			}
		}
	}
}
