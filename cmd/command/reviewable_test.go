package command

import "testing"

func TestReviewableOptions(t *testing.T) {
	testParse(t, (*runner).reviewableCommand, []parseCase[ReviewableOptions]{
		{name: "default", argv: []string{"reviewable"}, want: ReviewableOptions{}},
		{name: "session", argv: []string{"reviewable", "--session", "s-1"}, want: ReviewableOptions{Session: "s-1"}},
		{name: "argument", argv: []string{"reviewable", "k3x"}, usage: true},
	})
}
