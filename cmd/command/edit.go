package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// EditOptions are td edit's inputs, as parsed from the command line.
type EditOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is the issue to edit, as typed (an ID or a prefix).
	Issue string
	// Edit holds the flags that were given; a field left nil (or empty)
	// is not changed. Description is the text read from
	// --description-file when that was given.
	Edit issues.EditOptions
}

// editCommand is td edit. runF, when not nil, replaces runEdit.
func (r *runner) editCommand(runF func(*EditOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "edit",
		Usage:     "change an issue's title, type, priority, labels, assignee or description",
		ArgsUsage: "ID",
		Description: `Rewrites only the frontmatter lines of the fields you change (and the
description, when you change it); every other byte of the file, unknown keys
and your own sections included, stays as it was. Status, creator, implementer
and resolution are not edited here: the review workflow owns them.

Examples:
   td edit td-k3x9qa --title "Sign in with GitHub or GitLab" -p P1
   td edit k3x --add-label backend --remove-label ui
   td edit k3x --append "Found while testing on Safari."
   td edit k3x --description-file notes.md
   td edit k3x --minor=false`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "title", Usage: "new title"},
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Usage: "P0 to P4"},
			&cli.BoolFlag{Name: "minor", Usage: "mark minor (--minor=false to clear)"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "replace the labels with these"},
			&cli.StringSliceFlag{Name: "add-label", Usage: "add a label"},
			&cli.StringSliceFlag{Name: "remove-label", Usage: "remove a label"},
			&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "assign (\"\" to clear)"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "replace the description"},
			&cli.StringFlag{Name: "description-file", Usage: "replace the description with `FILE` (- for standard input)"},
			&cli.StringFlag{Name: "append", Usage: "append a paragraph to the description"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID [flags]")
			if err != nil {
				return err
			}
			var e issues.EditOptions
			str := func(name string) *string {
				if !c.IsSet(name) {
					return nil
				}
				v := c.String(name)
				return &v
			}
			e.Title, e.Type, e.Priority, e.Assignee, e.Description = str("title"), str("type"), str("priority"), str("assignee"), str("description")
			if c.IsSet("minor") {
				v := c.Bool("minor")
				e.Minor = &v
			}
			if c.IsSet("label") {
				v := c.StringSlice("label")
				e.Labels = &v
			}
			e.AddLabels, e.RemoveLabels, e.Append = c.StringSlice("add-label"), c.StringSlice("remove-label"), c.String("append")
			if c.String("description-file") != "" {
				d, err := r.textOrFile(c, c.String("description"), "description-file", "--description or --description-file")
				if err != nil {
					return err
				}
				e.Description = &d
			}
			if e.Title == nil && e.Type == nil && e.Priority == nil && e.Minor == nil && e.Labels == nil &&
				len(e.AddLabels) == 0 && len(e.RemoveLabels) == 0 && e.Assignee == nil && e.Description == nil && e.Append == "" {
				return usagef("nothing to change: give at least one of --title, --type, --priority, --minor, --label, --add-label, --remove-label, --assignee, --description, --description-file, --append")
			}
			o := &EditOptions{Session: c.String("session"), Issue: a[0], Edit: e}
			if runF != nil {
				return runF(o)
			}
			return r.runEdit(o)
		},
	}
}

// runEdit applies the changes and lists those that changed something.
func (r *runner) runEdit(o *EditOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	is, changes, err := issues.Edit(s, se, o.Issue, o.Edit)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		if changes == nil {
			changes = []issues.Change{}
		}
		return map[string]any{"issue": toIssueJSON(is), "changes": changes}
	}, func() error {
		if len(changes) == 0 {
			r.st.printf("%s unchanged: it already says that.\n", is.ID)
			return nil
		}
		r.st.printf("Updated %s:\n", is.ID)
		for _, ch := range changes {
			if ch.Field == "description" {
				r.st.printf("  description changed\n")
				continue
			}
			r.st.printf("  %s: %s -> %s\n", ch.Field, showValue(ch.From), showValue(ch.To))
		}
		return nil
	})
}

// showValue prints a changed field's value: "" for an empty string, a
// list in brackets.
func showValue(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v)
}
