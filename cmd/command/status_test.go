package command

import "testing"

func TestStatusOptions(t *testing.T) {
	testParse(t, (*runner).statusCommand, []parseCase[StatusOptions]{
		{name: "default", argv: []string{"status"}, want: StatusOptions{}},
		{name: "session", argv: []string{"status", "--json", "--session", "s-1"}, json: true, want: StatusOptions{Session: "s-1"}},
		{name: "argument", argv: []string{"status", "k3x"}, usage: true},
	})
}
