package command

import (
	"strings"

	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// CreateOptions are td create's inputs, as parsed from the command line.
type CreateOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Title is the new issue's title, the arguments joined by spaces.
	Title string
	// Type is --type and Priority --priority, as typed.
	Type, Priority string
	// Labels are the --label values as typed (commas not yet split).
	Labels []string
	// Minor is --minor.
	Minor bool
	// Description is --description, or the text read from --description-file.
	Description string
	// NoParent is --no-parent: do not link the issue child_of the bound one.
	NoParent bool
}

// createCommand is td create. runF, when not nil, replaces runCreate.
func (r *runner) createCommand(runF func(*CreateOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "create",
		Aliases:   []string{"new"},
		Usage:     "file a new issue",
		ArgsUsage: "TITLE",
		Description: `Creates .todos/issues/<id>.md and records "created" in its ledger. Inside a
session bound to an issue, the new issue is linked child_of the bound one
(--no-parent to skip): work an agent discovers is filed under its task.

Examples:
   td create "Sign in with GitHub" --type feature -p P1 -l auth
   td create "Fix typo in README" --minor
   echo "Steps to reproduce…" | td create "Crash on start" --type bug --description-file -`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "task", Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "P0 (most urgent) to P4"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "a label; repeat or separate with commas"},
			&cli.BoolFlag{Name: "minor", Usage: "a minor issue: anyone may approve it, its implementer included"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "the description (markdown)"},
			&cli.StringFlag{Name: "description-file", Usage: "read the description from `FILE` (- for standard input)"},
			&cli.BoolFlag{Name: "no-parent", Usage: "inside a bound session, do not link the new issue child_of the bound one"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TITLE [flags]")
			if err != nil {
				return err
			}
			desc, err := r.textOrFile(c, c.String("description"), "description-file", "--description or --description-file")
			if err != nil {
				return err
			}
			o := &CreateOptions{Session: c.String("session"), Title: strings.Join(a, " "), Type: c.String("type"),
				Priority: c.String("priority"), Labels: c.StringSlice("label"), Minor: c.Bool("minor"),
				Description: desc, NoParent: c.Bool("no-parent")}
			if runF != nil {
				return runF(o)
			}
			return r.runCreate(o)
		},
	}
}

// runCreate files the issue, under the bound issue unless NoParent.
func (r *runner) runCreate(o *CreateOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	parent := ""
	if !o.NoParent {
		if parent, err = sessions.Parent(s, se); err != nil {
			return err
		}
	}
	is, err := issues.Create(s, se, issues.CreateOptions{
		Title: o.Title, Type: o.Type, Priority: o.Priority,
		Labels: o.Labels, Minor: o.Minor, Description: o.Description, Parent: parent,
	})
	if err != nil {
		return err
	}
	return r.st.export(func() any { return toIssueJSON(is) }, func() error {
		r.st.printf("Created %s: %s%s\n", r.st.paint(ansiBold, is.ID), safe(is.Title), parentNote(is))
		return nil
	})
}
