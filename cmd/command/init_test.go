package command

import "testing"

func TestInitOptions(t *testing.T) {
	testParse(t, (*runner).initCommand, []parseCase[InitOptions]{
		{name: "default", argv: []string{"init"}, want: InitOptions{Prefix: "td"}},
		{name: "flags", argv: []string{"init", "--prefix", "web", "--no-git"}, want: InitOptions{Prefix: "web", PrefixGiven: true, NoGit: true}},
		{name: "argument", argv: []string{"init", "here"}, usage: true},
		{name: "ci github", argv: []string{"init", "--ci", "github"}, want: InitOptions{Prefix: "td", CI: "github"}},
		{name: "ci gitlab", argv: []string{"init", "--ci", "gitlab"}, want: InitOptions{Prefix: "td", CI: "gitlab"}},
		{name: "ci unknown", argv: []string{"init", "--ci", "jenkins"}, usage: true},
		{name: "ci without git", argv: []string{"init", "--ci", "github", "--no-git"}, usage: true},
	})
}
