package command

import "testing"

func TestUnlinkOptions(t *testing.T) {
	testParse(t, (*runner).unlinkCommand, []parseCase[UnlinkOptions]{
		{name: "unlink", argv: []string{"unlink", "m2p", "relates_to", "k3x"}, want: UnlinkOptions{Issue: "m2p", Kind: "relates_to", Other: "k3x"}},
		{name: "one", argv: []string{"unlink", "m2p"}, usage: true},
	})
}
