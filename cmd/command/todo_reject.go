package command

import (
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoRejectOptions are td todo reject's inputs, as parsed from the command
// line.
type TodoRejectOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is --issue: an issue other than the bound one (operators).
	Issue string
	// Proposal is the proposal's ID or a unique part of an item's text.
	Proposal string
	// Reason is --reason, which the subagent reads.
	Reason string
}

// todoRejectCommand is td todo reject. runF, when not nil, replaces
// runTodoReject.
func (r *runner) todoRejectCommand(runF func(*TodoRejectOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "reject",
		Usage:     "reject a subagent's proposal, with a reason; the list is untouched",
		ArgsUsage: "PROPOSAL",
		Description: `PROPOSAL is the proposal's ID or a unique part of one of its items' text.
Only the proposing subagent's root agent or an operator may reject; the
reason is recorded in the ledger for the subagent to read (td todo
proposals).

Examples:
   td todo reject p7k2 --reason "the design team owns the colour tokens"`,
		Flags: []cli.Flag{proposalIssueFlag(), reasonFlag("why (required): the subagent reads it")},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "PROPOSAL --reason WHY")
			if err != nil {
				return err
			}
			o := &TodoRejectOptions{Session: c.String("session"), Issue: c.String("issue"), Proposal: a[0], Reason: c.String("reason")}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoReject(o)
		},
	}
}

// runTodoReject rejects the proposal with its reason and reports it.
func (r *runner) runTodoReject(o *TodoRejectOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.RejectProposal(s, se, o.Issue, o.Proposal, o.Reason)
	if err != nil {
		return err
	}
	p := res.Proposal
	return r.st.export(func() any {
		return map[string]any{"issue": todoIssueJSON{ID: res.Issue.ID, Title: res.Issue.Title, Status: res.Issue.Status},
			"proposal": proposalJSONOf(p)}
	}, func() error {
		r.st.printf("Rejected %s from %s (%s) on %s: %s\n", p.ID, p.Agent, proposalWhat(p), res.Issue.ID, safe(p.Reason))
		return nil
	})
}
