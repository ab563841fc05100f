package command

import (
	"bytes"
	"strings"
	"testing"
)

func TestCommentOptions(t *testing.T) {
	tests := []struct {
		name  string
		argv  []string
		stdin string
		want  CommentOptions
		usage bool
	}{
		{name: "words", argv: []string{"comment", "k3x", "looks", "right"}, want: CommentOptions{Issue: "k3x", Text: "looks right"}},
		{name: "session", argv: []string{"comment", "k3x", "ok", "--session", "s-1"}, want: CommentOptions{Issue: "k3x", Text: "ok", Session: "s-1"}},
		{name: "stdin", argv: []string{"comment", "k3x", "--file", "-"}, stdin: "from a pipe\n", want: CommentOptions{Issue: "k3x", Text: "from a pipe\n"}},
		{name: "no issue", argv: []string{"comment"}, usage: true},
		{name: "both", argv: []string{"comment", "k3x", "text", "-f", "-"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *CommentOptions
			r := &runner{st: &streams{in: strings.NewReader(tt.stdin), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}, getenv: func(string) string { return "" }}
			cmd := r.commentCommand(func(o *CommentOptions) error { got = o; return nil })
			err := runCommand(r, cmd, tt.argv)
			if tt.usage {
				if exitCode(err) != 2 {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || *got != tt.want {
				t.Errorf("parsed %+v, want %+v", got, tt.want)
			}
		})
	}
}
