package command

import "testing"

func TestReclaimOptions(t *testing.T) {
	testParse(t, (*runner).reclaimCommand, []parseCase[ReclaimOptions]{
		{name: "no reason", argv: []string{"reclaim", "k3x"}, usage: true},
		{name: "a blank reason", argv: []string{"reclaim", "k3x", "--reason", " "}, usage: true},
		{name: "reason after", argv: []string{"reclaim", "k3x", "--reason", "gone"}, want: ReclaimOptions{Issue: "k3x", Reason: "gone"}},
		{name: "reason before", argv: []string{"reclaim", "-m", "gone", "k3x"}, want: ReclaimOptions{Issue: "k3x", Reason: "gone"}},
		{name: "no issue", argv: []string{"reclaim"}, usage: true},
		{name: "two issues", argv: []string{"reclaim", "a", "b"}, usage: true},
	})
}
