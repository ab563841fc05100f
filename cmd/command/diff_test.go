package command

import "testing"

func TestDiffOptions(t *testing.T) {
	testParse(t, (*runner).diffCommand, []parseCase[DiffOptions]{
		{name: "default", argv: []string{"diff"}, want: DiffOptions{Format: "text"}},
		{name: "base", argv: []string{"diff", "main"}, want: DiffOptions{Base: "main", Format: "text"}},
		{name: "base and head", argv: []string{"diff", "v1.2", "HEAD", "--format", "markdown"}, want: DiffOptions{Base: "v1.2", Head: "HEAD", Format: "markdown"}},
		{name: "json wins", argv: []string{"diff", "--json", "--format", "markdown"}, json: true, want: DiffOptions{Format: "json"}},
		{name: "json ignores a bad format", argv: []string{"diff", "--json", "--format", "yaml"}, json: true, want: DiffOptions{Format: "json"}},
		{name: "bad format", argv: []string{"diff", "--format", "yaml"}, usage: true},
		{name: "three revisions", argv: []string{"diff", "a", "b", "c"}, usage: true},
	})
}
