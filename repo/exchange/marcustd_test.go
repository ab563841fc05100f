package exchange

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "marcustd", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseMarcusTD reads the committed fixture: the mapping of every
// issue, the links, and the events in time order.
func TestParseMarcusTD(t *testing.T) {
	p, err := ParseMarcusTD("issues.db", readFixture(t, "issues.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Bad) != 0 || len(p.Records) != 5 {
		t.Fatalf("%d records and bad rows %v, want 5 and none", len(p.Records), p.Bad)
	}
	by := map[string]*Record{}
	for _, r := range p.Records {
		by[r.Source] = r
	}
	for _, tt := range []struct {
		src    string
		status domain.Status
		res    domain.Resolution
		typ    domain.IssueType
		prio   domain.Priority
		links  int
		events int
		extra  []string
	}{
		{"marcus-td:td-a1b2c3", domain.StatusOpen, "", domain.TypeEpic, domain.P1, 0, 0, nil},
		{"marcus-td:td-d4e5f6", domain.StatusInProgress, "", domain.TypeFeature, domain.P1, 2, 4, []string{"points", "sprint", "files", "implementer_session", "creator_session", "created_branch"}},
		{"marcus-td:td-789abc", domain.StatusClosed, domain.ResolutionDone, domain.TypeTask, domain.P2, 1, 1, nil},
		{"marcus-td:td-def012", domain.StatusInReview, "", domain.TypeBug, domain.P0, 1, 1, []string{"dependencies", "due_date", "reviewer_session"}},
		{"marcus-td:td-345678", domain.StatusClosed, domain.ResolutionWontfix, domain.TypeFeature, domain.P3, 0, 60, []string{"deleted_at", "status"}},
	} {
		r := by[tt.src]
		if r == nil {
			t.Fatalf("no record %s", tt.src)
		}
		if r.Status != tt.status || r.Resolution != tt.res || r.Type != tt.typ || r.Priority != tt.prio || len(r.Links) != tt.links || len(r.Events) != tt.events {
			t.Errorf("%s: %s %s %s %s, %d links, %d events; want %s %s %s %s, %d, %d", tt.src, r.Status, r.Resolution, r.Type, r.Priority,
				len(r.Links), len(r.Events), tt.status, tt.res, tt.typ, tt.prio, tt.links, tt.events)
		}
		for _, k := range tt.extra {
			if _, ok := r.Extra[k]; !ok {
				t.Errorf("%s: %s is not kept under imported: (%v)", tt.src, k, r.Extra)
			}
		}
		for i := 1; i < len(r.Events); i++ {
			if r.Events[i].At.Before(r.Events[i-1].At) {
				t.Errorf("%s: events out of time order", tt.src)
			}
		}
	}
	f := by["marcus-td:td-d4e5f6"]
	if len(f.Criteria) != 2 || f.Criteria[0].Status != domain.TodoCompleted || !f.CreatedAt.Equal(time.Date(2026, 1, 5, 9, 10, 0, 0, time.UTC)) {
		t.Errorf("criteria %v, created %v", f.Criteria, f.CreatedAt)
	}
	if f.Links[0] != (Link{Kind: domain.ChildOf, To: "marcus-td:td-a1b2c3"}) || f.Links[1] != (Link{Kind: domain.BlockedBy, To: "marcus-td:td-789abc"}) {
		t.Errorf("links %v", f.Links)
	}
}

func TestParseMarcusTDRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"text", []byte("hello"), `x.db: not a SQLite database (it does not start with "SQLite format 3")`},
		{"cut short", readFixture(t, "truncated.db"), "x.db: the database is damaged: the header counts 52 pages but the file holds 8"},
	} {
		_, err := ParseMarcusTD("x.db", tt.data)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestCellTime(t *testing.T) {
	utc := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, tt := range []struct {
		in   any
		want time.Time
		err  string
	}{
		{nil, time.Time{}, ""},
		{"", time.Time{}, ""},
		{"2026-01-05 09:00:00+00:00", utc("2026-01-05T09:00:00Z"), ""},
		{"2026-01-05 10:00:00.123456789+01:00", utc("2026-01-05T09:00:00Z"), ""},
		{"2026-01-05 09:00:00", utc("2026-01-05T09:00:00Z"), ""},
		{"2026-01-05T09:00:00Z", utc("2026-01-05T09:00:00Z"), ""},
		{"2026-01-05 01:00:00.5 -0800 PST m=+0.012", utc("2026-01-05T09:00:00Z"), ""},
		{"2026-01-05", utc("2026-01-05T00:00:00Z"), ""},
		{int64(1767603600), utc("2026-01-05T09:00:00Z"), ""},
		{"yesterday", time.Time{}, `t "yesterday" is not a time`},
		{[]byte{1}, time.Time{}, "binary data"},
	} {
		got, err := cellTime(map[string]any{"t": tt.in}, "t")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%v: %v %v, want %v", tt.in, got, err, tt.want)
		}
	}
}
