package command

import "testing"

func TestReviewableOptions(t *testing.T) {
	testParse(t, (*runner).reviewableCommand, []parseCase[ReviewableOptions]{
		{name: "default", argv: []string{"reviewable"}, want: ReviewableOptions{}},
		{name: "session", argv: []string{"reviewable", "--session", "s-1"}, want: ReviewableOptions{Session: "s-1"}},
		{name: "all", argv: []string{"reviewable", "--all"}, want: ReviewableOptions{All: true}},
		{name: "a", argv: []string{"reviewable", "-a", "--session", "s-1"}, want: ReviewableOptions{Session: "s-1", All: true}},
		{name: "argument", argv: []string{"reviewable", "k3x"}, usage: true},
	})
}
