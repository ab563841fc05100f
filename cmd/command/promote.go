package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// PromoteOptions are td promote's inputs, as parsed from the command line.
type PromoteOptions struct {
	// Session is --session: the session promoting its work ("" for the
	// default).
	Session string
	// Title is the new issue's title, the arguments joined by spaces.
	Title string
	// Type, Priority, Labels and Description are the new issue's.
	Type        string
	Priority    string
	Labels      []string
	Description string
	// NoParent is --no-parent: do not file it as a child of the bound
	// issue.
	NoParent bool
}

// promoteCommand is td promote: file the work in hand as an issue and bind
// to it. runF, when not nil, replaces runPromote.
func (r *runner) promoteCommand(runF func(*PromoteOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "promote",
		Usage:     "file the work you are doing as an issue and bind your session to it",
		ArgsUsage: "TITLE",
		Description: `For an agent that started without an issue: the new issue becomes its
checklist. A session already bound files the new issue as a child of the
old one (--no-parent to skip) and moves its binding.

Examples:
   td promote "Migrate the session store to Redis"
   td promote "Flaky login test" --type bug -d "Fails one run in ten."`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "task", Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "P0 (most urgent) to P4"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "a label; repeat or separate with commas"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "the description (markdown)"},
			&cli.BoolFlag{Name: "no-parent", Usage: "do not link the new issue child_of the bound one"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TITLE [flags]")
			if err != nil {
				return err
			}
			o := &PromoteOptions{Session: c.String("session"), Title: strings.Join(a, " "), Type: c.String("type"), Priority: c.String("priority"),
				Labels: c.StringSlice("label"), Description: c.String("description"), NoParent: c.Bool("no-parent")}
			if runF != nil {
				return runF(o)
			}
			return r.runPromote(o)
		},
	}
}

// runPromote files the issue, binds the session to it and says so.
func (r *runner) runPromote(o *PromoteOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	is, b, err := sessions.Promote(s, se, issues.CreateOptions{Title: o.Title, Type: o.Type,
		Priority: o.Priority, Labels: o.Labels, Description: o.Description}, o.NoParent)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return map[string]any{"issue": toIssueJSON(is), "session": se.ID, "unbound": b.Previous}
	}, func() error {
		r.st.printf("Created %s: %s%s\n", r.st.paint(ansiBold, is.ID), safe(is.Title), parentNote(is))
		if b.Previous != "" {
			r.st.printf("Unbound %s from %s.\n", se.ID, b.Previous)
		}
		r.st.printf("Bound %s to %s: plan the work with td todo set.\n", se.ID, is.ID)
		return nil
	})
}

// parentNote is " (child of ID)" for an issue filed under another.
func parentNote(is *repo.Issue) string {
	for _, l := range is.Links {
		if l.Kind == domain.ChildOf {
			return " (child of " + l.To + ")"
		}
	}
	return ""
}
