package command

import "testing"

func TestLogOptions(t *testing.T) {
	testParse(t, (*runner).logCommand, []parseCase[LogOptions]{
		{name: "id", argv: []string{"log", "k3x"}, want: LogOptions{Issue: "k3x"}},
		{name: "limit", argv: []string{"log", "k3x", "-n", "5"}, want: LogOptions{Issue: "k3x", Limit: 5}},
		{name: "negative limit", argv: []string{"log", "k3x", "--limit", "-1"}, usage: true},
		{name: "not a number", argv: []string{"log", "k3x", "--limit", "five"}, usage: true},
		{name: "no id", argv: []string{"log"}, usage: true},
	})
}
