package command

import (
	"testing"

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
