package command

import "testing"

func TestCreateOptions(t *testing.T) {
	def := func(o CreateOptions) CreateOptions {
		if o.Type == "" {
			o.Type = "task"
		}
		if o.Priority == "" {
			o.Priority = "P2"
		}
		return o
	}
	testParse(t, (*runner).createCommand, []parseCase[CreateOptions]{
		{name: "title words", argv: []string{"create", "Fix", "the", "login"}, want: def(CreateOptions{Title: "Fix the login"})},
		{name: "flags after", argv: []string{"create", "Crash", "--type", "bug", "-p", "P0", "-l", "a,b", "-l", "c", "--minor", "--no-parent", "--session", "s-1"},
			want: CreateOptions{Title: "Crash", Type: "bug", Priority: "P0", Labels: []string{"a,b", "c"}, Minor: true, NoParent: true, Session: "s-1"}},
		{name: "description", argv: []string{"new", "T", "-d", "why"}, want: def(CreateOptions{Title: "T", Description: "why"})},
		{name: "description file", argv: []string{"create", "T", "--description-file", "-"}, stdin: "steps\n", want: def(CreateOptions{Title: "T", Description: "steps\n"})},
		{name: "no title", argv: []string{"create"}, usage: true},
		{name: "both descriptions", argv: []string{"create", "T", "-d", "x", "--description-file", "-"}, usage: true},
		{name: "unknown flag", argv: []string{"create", "T", "--nope"}, usage: true},
	})
}
