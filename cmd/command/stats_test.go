package command

import (
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// td stats security parses as td security does.
func TestStatsSecurityOptions(t *testing.T) {
	testParse(t, (*runner).statsCommand, []parseCase[SecurityOptions]{
		{name: "all", argv: []string{"stats", "security"}, want: SecurityOptions{}},
		{name: "kind", argv: []string{"stats", "security", "--kind", "feature_flag_changed"}, want: SecurityOptions{Kind: "feature_flag_changed"}},
		{name: "unknown kind", argv: []string{"stats", "security", "--kind", "nope"}, usage: true},
	})
}

func TestStatsOptions(t *testing.T) {
	build := func(r *runner, runF func(*StatsOptions) error) *cli.Command { return r.statsCommandRun(nil, runF) }
	testParse(t, build, []parseCase[StatsOptions]{
		{name: "default", argv: []string{"stats"}, want: StatsOptions{Weeks: 8}},
		{name: "weeks", argv: []string{"stats", "--weeks", "12"}, want: StatsOptions{Weeks: 12}},
		{name: "no weeks", argv: []string{"stats", "--weeks", "0"}, usage: true},
		{name: "an argument", argv: []string{"stats", "all"}, usage: true},
	})
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
