package command

import "testing"

func TestLinkOptions(t *testing.T) {
	testParse(t, (*runner).linkCommand, []parseCase[LinkOptions]{
		{name: "link", argv: []string{"link", "k3x", "blocked_by", "9zq"}, want: LinkOptions{Issue: "k3x", Kind: "blocked_by", Other: "9zq"}},
		{name: "session", argv: []string{"link", "--session", "s-1", "a", "blocks", "b"}, want: LinkOptions{Session: "s-1", Issue: "a", Kind: "blocks", Other: "b"}},
		{name: "two", argv: []string{"link", "k3x", "blocked_by"}, usage: true},
		{name: "four", argv: []string{"link", "k3x", "blocked_by", "a", "b"}, usage: true},
	})
}
