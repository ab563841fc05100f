package command

import (
	"strings"

	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// AnchorRmOptions are td anchor rm's inputs, as parsed from the command
// line.
type AnchorRmOptions struct {
	AnchorScope
	// Text names the anchor: exactly, ignoring case, or a unique part.
	Text string
}

// anchorRmCommand is td anchor rm. runF, when not nil, replaces
// runAnchorRm.
func (r *runner) anchorRmCommand(runF func(*AnchorRmOptions) error) *cli.Command {
	return &cli.Command{
		Name: "rm", Aliases: []string{"remove"}, Usage: "remove an anchor, named by its text", ArgsUsage: "TEXT",
		Description: `TEXT matches exactly, then ignoring case, then as a unique part of one anchor.

Examples:
   td anchor rm "public API"
   td anchor rm "two cores" --project`,
		Flags: anchorScopeFlags(),
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TEXT [--project | --issue ID]")
			if err != nil {
				return err
			}
			o := &AnchorRmOptions{AnchorScope: anchorScopeOf(c), Text: strings.Join(a, " ")}
			if runF != nil {
				return runF(o)
			}
			return r.runAnchorRm(o)
		},
	}
}

// runAnchorRm removes the anchor and reports it.
func (r *runner) runAnchorRm(o *AnchorRmOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.RemoveAnchor(s, se, todos.AnchorRequest{Issue: o.Issue, Project: o.Project, Text: o.Text})
	if err != nil {
		return err
	}
	return r.printAnchorChange(res, "Removed")
}
