package command

import "testing"

func TestFmtOptions(t *testing.T) {
	testParse(t, (*runner).fmtCommand, []parseCase[FmtOptions]{
		{name: "all", argv: []string{"fmt"}, want: FmtOptions{Issues: []string{}}},
		{name: "some, check", argv: []string{"fmt", "k3x", "--check", "m2p"}, want: FmtOptions{Issues: []string{"k3x", "m2p"}, Check: true}},
		{name: "session", argv: []string{"fmt", "--session", "s-1"}, want: FmtOptions{Session: "s-1", Issues: []string{}}},
		{name: "unknown flag", argv: []string{"fmt", "--write"}, usage: true},
	})
}
