package command

import "testing"

func TestInitOptions(t *testing.T) {
	testParse(t, (*runner).initCommand, []parseCase[InitOptions]{
		{name: "default", argv: []string{"init"}, want: InitOptions{Prefix: "td"}},
		{name: "flags", argv: []string{"init", "--prefix", "web", "--no-git"}, want: InitOptions{Prefix: "web", NoGit: true}},
		{name: "argument", argv: []string{"init", "here"}, usage: true},
	})
}
