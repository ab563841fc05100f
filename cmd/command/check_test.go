package command

import "testing"

func TestCheckOptions(t *testing.T) {
	testParse(t, (*runner).checkCommand, []parseCase[CheckOptions]{
		{name: "no base", argv: []string{"check"}, want: CheckOptions{}},
		{name: "base", argv: []string{"check", "--base", "origin/main"}, want: CheckOptions{Base: "origin/main"}},
		{name: "argument", argv: []string{"check", "main"}, usage: true},
	})
}
