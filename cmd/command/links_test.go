package command

import "testing"

func TestLinksOptions(t *testing.T) {
	testParse(t, (*runner).linksCommand, []parseCase[LinksOptions]{
		{name: "id", argv: []string{"links", "k3x"}, want: LinksOptions{Issue: "k3x"}},
		{name: "no id", argv: []string{"links"}, usage: true},
		{name: "two", argv: []string{"links", "a", "b"}, usage: true},
	})
}
