package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// AnchorAddOptions are td anchor add's inputs, as parsed from the command
// line.
type AnchorAddOptions struct {
	AnchorScope
	// Priority is --priority: critical, high or normal.
	Priority domain.AnchorPriority
	// Text is the anchor, the arguments joined by spaces.
	Text string
}

// anchorAddCommand is td anchor add. runF, when not nil, replaces
// runAnchorAdd.
func (r *runner) anchorAddCommand(runF func(*AnchorAddOptions) error) *cli.Command {
	return &cli.Command{
		Name: "add", Usage: "add an anchor to the bound issue (or --project)", ArgsUsage: "TEXT",
		Description: `Examples:
   td anchor add "Tokens are never logged" --priority critical
   td anchor add "Prefer table tests" --project`,
		Flags: append([]cli.Flag{&cli.StringFlag{Name: "priority", Value: string(domain.AnchorNormal), Usage: "critical, high or normal"}}, anchorScopeFlags()...),
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TEXT [--priority critical|high|normal] [--project | --issue ID]")
			if err != nil {
				return err
			}
			o := &AnchorAddOptions{AnchorScope: anchorScopeOf(c), Priority: domain.AnchorPriority(c.String("priority")), Text: strings.Join(a, " ")}
			if runF != nil {
				return runF(o)
			}
			return r.runAnchorAdd(o)
		},
	}
}

// runAnchorAdd adds the anchor and reports it.
func (r *runner) runAnchorAdd(o *AnchorAddOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.AddAnchor(s, se, todos.AnchorRequest{Issue: o.Issue, Project: o.Project, Priority: o.Priority, Text: o.Text})
	if err != nil {
		return err
	}
	return r.printAnchorChange(res, "Added")
}
