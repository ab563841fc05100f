package command

import (
	"strings"

	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// CommentOptions are td comment's inputs, as parsed from the command line.
type CommentOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is the issue to comment on, as typed (an ID or a prefix).
	Issue string
	// Text is the comment, from the arguments or from --file.
	Text string
}

// commentCommand is td comment. runF, when not nil, replaces runComment,
// so a test can check what the command line parses to without a
// repository.
func (r *runner) commentCommand(runF func(*CommentOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "comment",
		Usage:     "add a comment to an issue's ledger",
		ArgsUsage: "ID TEXT...",
		Description: `Comments are ledger entries (.todos/history/<id>.jsonl): append-only, merged
by union, shown by td show.

Examples:
   td comment td-k3x9qa "The callback must verify the state parameter."
   git diff | td comment k3x --file -`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "read the comment from `FILE` (- for standard input)"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "ID TEXT...")
			if err != nil {
				return err
			}
			text, err := r.textOrFile(c, strings.Join(a[1:], " "), "file", "the comment as arguments or with --file")
			if err != nil {
				return err
			}
			o := &CommentOptions{Session: c.String("session"), Issue: a[0], Text: text}
			if runF != nil {
				return runF(o)
			}
			return r.runComment(o)
		},
	}
}

// runComment appends the comment to the issue's ledger and reports it.
func (r *runner) runComment(o *CommentOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	is, e, err := issues.Comment(s, se, o.Issue, o.Text)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		text, _ := e.Details["text"].(string)
		return map[string]any{"issue": is.ID, "comment": commentJSON{At: jsonTime(e.TS), Session: e.Session, Text: text}}
	}, func() error {
		r.st.printf("Commented on %s.\n", is.ID)
		return nil
	})
}
