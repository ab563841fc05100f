package command

import "testing"

func TestResolveOptions(t *testing.T) {
	testParse(t, (*runner).resolveCommand, []parseCase[ResolveOptions]{
		{name: "everything", argv: []string{"resolve"}, want: ResolveOptions{Paths: []string{}}},
		{name: "paths", argv: []string{"resolve", ".todos/issues/td-k3x9qa.md", ".todos/history"},
			want: ResolveOptions{Paths: []string{".todos/issues/td-k3x9qa.md", ".todos/history"}}},
		{name: "json after a path", argv: []string{"resolve", ".todos", "--json"}, want: ResolveOptions{Paths: []string{".todos"}}},
		{name: "unknown flag", argv: []string{"resolve", "--theirs"}, usage: true},
	})
}
