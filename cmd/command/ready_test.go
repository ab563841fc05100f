package command

import (
	"testing"

	"github.com/tdproject/td/repo"
)

func TestReadyOptions(t *testing.T) {
	testParse(t, (*runner).readyCommand, []parseCase[ReadyOptions]{
		{name: "all", argv: []string{"ready"}, want: ReadyOptions{}},
		{name: "as a session", argv: []string{"ready", "--session", "ses_12345678"}, want: ReadyOptions{Session: "ses_12345678"}},
		{name: "filters", argv: []string{"ready", "-p", "P0", "-p", "P1", "--label", "auth,ui", "-t", "bug", "-a", "me"},
			want: ReadyOptions{Filter: repo.Filter{Priorities: []string{"P0", "P1"}, Labels: []string{"auth", "ui"}, Types: []string{"bug"}, Assignee: "me"}}},
		{name: "argument", argv: []string{"ready", "now"}, usage: true},
	})
}
