package command

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoAcceptOptions are td todo accept's inputs, as parsed from the command
// line.
type TodoAcceptOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is --issue: an issue other than the bound one (operators).
	Issue string
	// Proposal is the proposal's ID or a unique part of an item's text.
	Proposal string
}

// proposalIssueFlag is --issue of the verbs that decide proposals.
func proposalIssueFlag() cli.Flag {
	return &cli.StringFlag{Name: "issue", Usage: "operators: the issue whose proposals to decide instead of the bound one"}
}

// todoAcceptCommand is td todo accept. runF, when not nil, replaces
// runTodoAccept.
func (r *runner) todoAcceptCommand(runF func(*TodoAcceptOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "accept",
		Usage:     "accept a subagent's proposal: its items join the list with the subagent as origin",
		ArgsUsage: "PROPOSAL",
		Description: `PROPOSAL is the proposal's ID (td todo view lists the waiting ones) or a
unique part of one of its items' text. Only the proposing subagent's root
agent or an operator may accept; a proposal is decided once. Items already
on the list by then are skipped. The acceptance is a ledger event.

Examples:
   td todo accept p7k2
   td todo accept "login button"
   td todo accept p7k2 --issue td-k3x9qa`,
		Flags: []cli.Flag{proposalIssueFlag()},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "PROPOSAL (its ID or part of an item's text)")
			if err != nil {
				return err
			}
			o := &TodoAcceptOptions{Session: c.String("session"), Issue: c.String("issue"), Proposal: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoAccept(o)
		},
	}
}

// runTodoAccept accepts the proposal and reports it, then the whole list.
func (r *runner) runTodoAccept(o *TodoAcceptOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.AcceptProposal(s, se, o.Issue, o.Proposal)
	if err != nil {
		return err
	}
	p := res.Proposal
	return r.st.export(func() any {
		return map[string]any{"proposal": proposalJSONOf(p), "skipped": nonNilStrings(res.Skipped), "todos": r.todoJSONOf(res.Todo)}
	}, func() error {
		where := fmt.Sprintf("under \"%s\"", res.Heading)
		if p.Kind == domain.KindCriterion {
			where = "to the acceptance criteria"
		}
		r.st.printf("Accepted %s from %s: %s added %s.\n", p.ID, p.Agent, countOf(p.Kind, len(res.Added)), where)
		for _, t := range res.Skipped {
			r.st.printf("Skipped %q: it was already on the list.\n", t)
		}
		r.st.printf("\n")
		return r.todosText(res.Todo, o.Issue)
	})
}
