package stats

import (
	"testing"
	"time"

	"github.com/tdproject/td/audit"
)

func TestCycleOf(t *testing.T) {
	h := time.Hour
	for _, tc := range []struct {
		name        string
		in          []time.Duration
		median, p90 time.Duration
	}{
		{"none", nil, 0, 0},
		{"one", []time.Duration{5 * h}, 5 * h, 5 * h},
		{"two: the mean of the middle", []time.Duration{4 * h, 2 * h}, 3 * h, 4 * h},
		{"three", []time.Duration{9 * h, 1 * h, 5 * h}, 5 * h, 9 * h},
		{"ten: the ninth is the 90th percentile", []time.Duration{1 * h, 2 * h, 3 * h, 4 * h, 5 * h, 6 * h, 7 * h, 8 * h, 9 * h, 10 * h}, 5*h + 30*time.Minute, 9 * h},
	} {
		c := cycleOf(tc.in)
		if c.N != len(tc.in) || c.Median != tc.median || c.P90 != tc.p90 {
			t.Errorf("%s: cycleOf = %+v, want median %v, p90 %v", tc.name, c, tc.median, tc.p90)
		}
	}
}

func TestWeekStart(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-16T00:00:00Z":      "2026-11-16", // a Monday
		"2026-11-22T23:59:59Z":      "2026-11-16", // the Sunday after
		"2026-11-21T10:00:00Z":      "2026-11-16",
		"2026-11-23T08:00:00+09:00": "2026-11-16", // still Sunday in UTC
	} {
		at, err := time.Parse(time.RFC3339, in)
		if err != nil {
			t.Fatal(err)
		}
		if got := weekStart(at).Format("2006-01-02"); got != want {
			t.Errorf("weekStart(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestFlowOf(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	f := flowOf([]audit.Entry{
		{TS: at("2026-11-01T09:00:00Z"), Action: audit.ActionCreated},
		{TS: at("2026-11-02T09:00:00Z"), Action: audit.ActionStarted, Details: map[string]any{"harness": "claude", "model": "m1"}},
		{TS: at("2026-11-03T09:00:00Z"), Action: audit.ActionStarted, Details: map[string]any{"harness": "codex"}},
		{TS: at("2026-11-04T09:00:00Z"), Action: audit.ActionApproved},
		{TS: at("2026-11-05T09:00:00Z"), Action: audit.ActionReopened},
		{TS: at("2026-11-06T09:00:00Z"), Action: audit.ActionClosed},
	})
	if !f.started.Equal(at("2026-11-02T09:00:00Z")) || !f.closed.Equal(at("2026-11-06T09:00:00Z")) || f.harness != "claude" || f.model != "m1" {
		t.Errorf("flowOf = %+v: want the first start, its harness, the last close", f)
	}
	if f := flowOf([]audit.Entry{{TS: at("2026-11-05T09:00:00Z"), Action: audit.ActionClosed}, {TS: at("2026-11-06T09:00:00Z"), Action: audit.ActionReopened}}); !f.closed.IsZero() {
		t.Errorf("a reopened issue has no close: %+v", f)
	}
}

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:              "under a minute",
		12 * time.Minute:              "12m",
		5*time.Hour + 20*time.Minute:  "5h 20m",
		3 * time.Hour:                 "3h",
		52 * time.Hour:                "2d 4h",
		48*time.Hour + 59*time.Minute: "2d",
	} {
		if got := Span(d); got != want {
			t.Errorf("Span(%v) = %q, want %q", d, got, want)
		}
	}
}
