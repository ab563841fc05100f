package command

import "testing"

// td stats security parses as td security does.
func TestStatsSecurityOptions(t *testing.T) {
	testParse(t, (*runner).statsCommand, []parseCase[SecurityOptions]{
		{name: "all", argv: []string{"stats", "security"}, want: SecurityOptions{}},
		{name: "kind", argv: []string{"stats", "security", "--kind", "feature_flag_changed"}, want: SecurityOptions{Kind: "feature_flag_changed"}},
		{name: "unknown kind", argv: []string{"stats", "security", "--kind", "nope"}, usage: true},
	})
}
