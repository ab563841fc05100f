package command

import "testing"

func TestShowOptions(t *testing.T) {
	testParse(t, (*runner).showCommand, []parseCase[ShowOptions]{
		{name: "id", argv: []string{"show", "k3x"}, want: ShowOptions{Issue: "k3x"}},
		{name: "json", argv: []string{"show", "--json", "td-k3x9qa"}, json: true, want: ShowOptions{Issue: "td-k3x9qa"}},
		{name: "no id", argv: []string{"show"}, usage: true},
		{name: "two ids", argv: []string{"show", "a", "b"}, usage: true},
	})
}
