package command

import (
	"github.com/tdproject/td/repo/people"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

// Output formats of td diff.
const (
	reviewFormatText     = "text"
	reviewFormatMarkdown = "markdown"
	reviewFormatJSON     = "json"
)

// DiffOptions are td diff's inputs, as parsed from the command line.
type DiffOptions struct {
	// Base and Head are the revisions to compare, as typed; "" is the
	// default branch for Base and the work tree for Head.
	Base, Head string
	// Format is --format: text, markdown or json (json with --json).
	Format string
}

// diffCommand is td diff. runF, when not nil, replaces runDiff.
func (r *runner) diffCommand(runF func(*DiffOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "what changed in .todos: issues opened and closed, criteria and todos, links, ledger and security events",
		ArgsUsage: "[BASE [HEAD]]",
		Description: `Compares td's files at two points and says what changed in td's terms:
issues opened, closed and reopened; status, priority, assignee and title
changes; acceptance criteria and todos added, completed, dropped, blocked;
links and labels; ledger entries and security events added.

With no HEAD the later side is the work tree, uncommitted changes included,
and the earlier side is where this branch left BASE (their merge base, as in
git diff BASE...), so only this branch's own changes show: what a pull
request would carry. BASE defaults to the default branch (origin/HEAD, else
main, else master). Given both, td diff compares BASE and HEAD as they are.

--format markdown prints a section ready to paste into a pull request.

Examples:
   td diff
   td diff main
   td diff v1.2 HEAD
   td diff main --format markdown | gh pr comment --body-file -
   td diff --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: reviewFormatText, Usage: "text, markdown or json"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 2, "[BASE [HEAD]]")
			if err != nil {
				return err
			}
			o := &DiffOptions{Format: c.String("format")}
			if r.st.wantsJSON() {
				o.Format = reviewFormatJSON
			}
			switch o.Format {
			case reviewFormatText, reviewFormatMarkdown, reviewFormatJSON:
			default:
				return usagef("--format %q must be text, markdown or json", o.Format)
			}
			if len(a) > 0 {
				o.Base = a[0]
			}
			if len(a) > 1 {
				o.Head = a[1]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runDiff(o)
		},
	}
}

// runDiff says what changed in .todos between the two revisions, in the
// format asked for.
func (r *runner) runDiff(o *DiffOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	rng, err := review.ResolveDiffRange(s, o.Base, o.Head)
	if err != nil {
		return err
	}
	d, err := review.Diff(s, rng)
	if err != nil {
		return err
	}
	for _, p := range d.Problems {
		r.st.warnf("%v", p)
	}
	name := func(id string) string { return people.NameOf(s, id) }
	return r.st.export(func() any { return diffJSON(d) }, func() error {
		switch o.Format {
		case reviewFormatJSON:
			return r.st.emitJSON(diffJSON(d))
		case reviewFormatMarkdown:
			r.st.printf("%s", safe(diffMarkdown(d, name)))
		default:
			r.st.printf("%s", safe(diffText(d, name)))
		}
		return nil
	})
}
