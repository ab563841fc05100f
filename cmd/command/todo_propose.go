package command

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

// TodoProposeOptions are td todo propose's inputs, as parsed from the
// command line.
type TodoProposeOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Items are the texts proposed, from the arguments and --items.
	Items []string
	// Phase is --phase: where accepted steps go ("" for the last segment
	// of the agent path).
	Phase string
	// Kind is --kind: step ("" too) or criterion.
	Kind domain.TodoKind
}

// todoProposeCommand is td todo propose. runF, when not nil, replaces
// runTodoPropose.
func (r *runner) todoProposeCommand(runF func(*TodoProposeOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "propose",
		Usage:     "subagents: propose todos to the root agent, which accepts or rejects them",
		ArgsUsage: "ITEM...",
		Description: `A subagent (an agent path deeper than one segment, such as
primary.subagents.ui) cannot change the list; it proposes items instead. The
proposal goes to the issue its root agent works on: the issue bound to the
subagent's own session if any, else the issue bound to the most recently
started session of its root agent (primary) in this checkout. It is
recorded in that issue's ledger with an ID (p7k2) and waits there: the root
agent sees it in td todo view and runs td todo accept or td todo reject.
Accepted steps join the list's phase of that name (ignoring case and
spacing), or go under a new "### PHASE (from primary.subagents.ui)" when it
has none; the phase defaults to the last segment of the path. With config
agents.<path>.todo_review: auto the proposal is accepted at once.

Examples:
   td todo propose "Login button" "Colour tokens" --phase Frontend
   td todo propose --items "Login button" --items "Colour tokens"
   td todo propose --kind criterion "The login button meets the contrast ratio"`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "items", Usage: "an item's text (repeatable; same as arguments)"},
			&cli.StringFlag{Name: "phase", Usage: "the phase the steps go to (default: the last segment of the agent path)"},
			&cli.StringFlag{Name: "kind", Usage: "step (default) or criterion (a proposed acceptance criterion)"},
		},
		Action: func(c *cli.Context) error {
			items := append(c.Args().Slice(), c.StringSlice("items")...)
			if len(items) == 0 {
				return usagef("usage: td todo propose ITEM... (or --items ITEM, repeatable)")
			}
			o := &TodoProposeOptions{Session: c.String("session"), Items: items, Phase: c.String("phase"), Kind: domain.TodoKind(c.String("kind"))}
			if runF != nil {
				return runF(o)
			}
			return r.runTodoPropose(o)
		},
	}
}

// runTodoPropose records the proposal and tells the subagent what became
// of it and what happens next.
func (r *runner) runTodoPropose(o *TodoProposeOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := todos.Propose(s, se, todos.ProposeRequest{Items: o.Items, Phase: o.Phase, Kind: o.Kind})
	if err != nil {
		return err
	}
	p := res.Proposal
	return r.st.export(func() any {
		via := ""
		if res.Via != nil {
			via = res.Via.ID
		}
		return map[string]any{"issue": todoIssueJSON{ID: res.Issue.ID, Title: res.Issue.Title, Status: res.Issue.Status},
			"proposal": proposalJSONOf(p), "via_session": via, "accepted": res.Accepted != nil}
	}, func() error {
		whose := "the issue this session is bound to"
		if res.Via != nil {
			whose = fmt.Sprintf("the issue %s's session %s is bound to", res.Via.Agent, res.Via.ID)
		}
		r.st.printf("Proposed %s to %s %s, %s:\n\n%s\n", r.st.paint(ansiBold, p.ID), res.Issue.ID, safe(res.Issue.Title), whose, safe(proposalBlock(p, res.Heading, p.Items)))
		if res.Accepted != nil {
			r.st.printf("Accepted at once (config agents.%s.todo_review is auto): %s added.\n", se.Agent, countOf(p.Kind, len(res.Accepted.Added)))
			return nil
		}
		root := se.Agent.Root()
		r.st.printf("It waits for %s or an operator to run td todo accept %s (or td todo reject %s); td todo proposals shows what became of it.\n", root, p.ID, p.ID)
		return nil
	})
}
