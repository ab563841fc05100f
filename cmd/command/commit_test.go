package command

import "testing"

func TestCommitOptions(t *testing.T) {
	testParse(t, (*runner).commitCommand, []parseCase[CommitOptions]{
		{name: "bare", argv: []string{"commit"}, want: CommitOptions{}},
		{name: "json", argv: []string{"commit", "--json"}, want: CommitOptions{}},
		{name: "argument", argv: []string{"commit", "td-k3x9qa"}, usage: true},
	})
}
