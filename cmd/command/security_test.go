package command

import "testing"

func TestSecurityOptions(t *testing.T) {
	testParse(t, (*runner).securityCommand, []parseCase[SecurityOptions]{
		{name: "all", argv: []string{"security"}, want: SecurityOptions{}},
		{name: "kind", argv: []string{"security", "--kind", "self_close_exception"}, want: SecurityOptions{Kind: "self_close_exception"}},
		{name: "unknown kind", argv: []string{"security", "--kind", "nope"}, usage: true},
		{name: "argument", argv: []string{"security", "all"}, usage: true},
	})
}
