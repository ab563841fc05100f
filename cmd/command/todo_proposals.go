package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoProposalsOptions are td todo proposals' inputs, as parsed from the
// command line.
type TodoProposalsOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is --issue: an issue other than the bound one (operators).
	Issue string
}

// todoProposalsCommand is td todo proposals. runF, when not nil, replaces
// runTodoProposals.
func (r *runner) todoProposalsCommand(runF func(*TodoProposalsOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "proposals",
		Usage: "list the proposals on the issue: waiting, accepted and rejected",
		Description: `For a subagent, the issue it proposes to (see td todo propose); for others,
the bound issue, or --issue for operators. Each proposal shows its items and
what became of it, with the reason of a rejection.

Examples:
   td todo proposals
   td todo proposals --issue td-k3x9qa --json`,
		Flags: []cli.Flag{proposalIssueFlag()},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--issue ID]"); err != nil {
				return err
			}
			o := &TodoProposalsOptions{Session: c.String("session"), Issue: c.String("issue")}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoProposals(o)
		},
	}
}

// runTodoProposals lists the proposals on the issue and what became of
// each.
func (r *runner) runTodoProposals(o *TodoProposalsOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	is, list, err := todos.ProposalsOn(s, se, o.Issue)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		return map[string]any{"issue": todoIssueJSON{ID: is.ID, Title: is.Title, Status: is.Status},
			"proposals": proposalsJSONOf(list)}
	}, func() error {
		r.st.printf("%s %s\n\n", r.st.paint(ansiBold, is.ID), safe(is.Title))
		if len(list) == 0 {
			r.st.printf("No proposals yet. Subagents propose todos with td todo propose \"first\" \"second\".\n")
			return nil
		}
		for _, p := range list {
			r.st.printf("%s from %s: %s, %s\n", r.st.paint(ansiBold, p.ID), p.Agent, proposalWhat(p), proposalState(p))
			for _, it := range p.Items {
				r.st.printf("  - %s\n", safe(it))
			}
		}
		return nil
	})
}
