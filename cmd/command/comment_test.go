package command

import "testing"

func TestCommentOptions(t *testing.T) {
	testParse(t, (*runner).commentCommand, []parseCase[CommentOptions]{
		{name: "words", argv: []string{"comment", "k3x", "looks", "right"}, want: CommentOptions{Issue: "k3x", Text: "looks right"}},
		{name: "session", argv: []string{"comment", "k3x", "ok", "--session", "s-1"}, want: CommentOptions{Issue: "k3x", Text: "ok", Session: "s-1"}},
		{name: "stdin", argv: []string{"comment", "k3x", "--file", "-"}, stdin: "from a pipe\n", want: CommentOptions{Issue: "k3x", Text: "from a pipe\n"}},
		{name: "no issue", argv: []string{"comment"}, usage: true},
		{name: "both", argv: []string{"comment", "k3x", "text", "-f", "-"}, usage: true},
	})
}
