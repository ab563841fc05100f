package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// AnchorListOptions are td anchor list's inputs, as parsed from the
// command line.
type AnchorListOptions struct {
	AnchorScope
}

// anchorListCommand is td anchor list (and td anchor alone). runF, when
// not nil, replaces runAnchorList.
func (r *runner) anchorListCommand(runF func(*AnchorListOptions) error) *cli.Command {
	return &cli.Command{
		Name: "list", Usage: "the project's anchors and the bound issue's", Flags: anchorScopeFlags(),
		Description: "Examples:\n   td anchor list\n   td anchor list --project --json",
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--issue ID | --project]"); err != nil {
				return err
			}
			o := &AnchorListOptions{AnchorScope: anchorScopeOf(c)}
			if runF != nil {
				return runF(o)
			}
			return r.runAnchorList(o)
		},
	}
}

// runAnchorList prints the anchors in scope.
func (r *runner) runAnchorList(o *AnchorListOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	anchors, err := todos.ListAnchors(s, se, todos.AnchorRequest{Issue: o.Issue, Project: o.Project})
	if err != nil {
		return err
	}
	return r.st.export(func() any { return nonNilSlice(anchors) }, func() error {
		if len(anchors) == 0 {
			r.st.printf("No anchors. td anchor add TEXT --priority critical adds one.\n")
			return nil
		}
		for _, a := range anchors {
			where := "project"
			if a.Issue != "" {
				where = a.Issue
			}
			r.st.printf("%-8s  %-9s  %s\n", a.Priority, where, safe(a.Text))
		}
		return nil
	})
}
