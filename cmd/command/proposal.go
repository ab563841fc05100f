package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

type proposalJSON struct {
	ID         string           `json:"id"`
	Agent      domain.AgentPath `json:"agent"`
	Session    string           `json:"session"`
	Kind       domain.TodoKind  `json:"kind"`
	Phase      string           `json:"phase"`
	Items      []string         `json:"items"`
	State      string           `json:"state"`
	ProposedAt string           `json:"proposed_at"`
	DecidedBy  string           `json:"decided_by"`
	DecidedAt  string           `json:"decided_at"`
	Auto       bool             `json:"auto"`
	Added      []string         `json:"added"`
	Reason     string           `json:"reason"`
}

func proposalJSONOf(p todos.Proposal) proposalJSON {
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	return proposalJSON{ID: p.ID, Agent: p.Agent, Session: p.Session, Kind: p.Kind, Phase: p.Phase,
		Items: nonNilStrings(p.Items), State: p.State, ProposedAt: stamp(p.ProposedAt), DecidedBy: p.DecidedBy,
		DecidedAt: stamp(p.DecidedAt), Auto: p.Auto, Added: nonNilStrings(p.Added), Reason: p.Reason}
}

func proposalsJSONOf(list []todos.Proposal) []proposalJSON {
	out := []proposalJSON{}
	for _, p := range list {
		out = append(out, proposalJSONOf(p))
	}
	return out
}

func nonNilStrings(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// proposalWhat says what a proposal holds: "2 steps for phase ui", "1 criterion".
func proposalWhat(p todos.Proposal) string {
	if p.Kind == domain.KindCriterion {
		return countOf(p.Kind, len(p.Items))
	}
	return fmt.Sprintf("%s for phase %s", countOf(p.Kind, len(p.Items)), p.Phase)
}

// countOf counts todos of a kind: "1 criterion", "2 steps".
func countOf(kind domain.TodoKind, n int) string {
	if kind == domain.KindCriterion {
		return fmt.Sprintf("%d %s", n, pluralWord(n, "criterion", "criteria"))
	}
	return fmt.Sprintf("%d %s", n, pluralWord(n, "step", "steps"))
}

// proposalBlock renders items as they would join the list: under their
// "(from …)" phase heading, or the acceptance criteria heading.
func proposalBlock(p todos.Proposal, items []string) string {
	var b strings.Builder
	if p.Kind == domain.KindCriterion {
		b.WriteString("## Acceptance criteria\n")
	} else {
		fmt.Fprintf(&b, "### %s (from %s)\n", p.Phase, p.Agent)
	}
	for _, it := range items {
		fmt.Fprintf(&b, "- [ ] %s\n", it)
	}
	return b.String()
}

// issueFlagHint is the --issue an operator needs to repeat in a suggested
// command, "" when they acted on the bound issue.
func issueFlagHint(issue string) string {
	if issue == "" {
		return ""
	}
	return " --issue " + issue
}

// printWaitingProposals prints the proposals waiting on the issue, each
// with the commands that decide it.
func (r *runner) printWaitingProposals(list []todos.Proposal, issueFlag string) {
	if len(list) == 0 {
		return
	}
	r.st.printf("\nProposals waiting (%d):\n", len(list))
	for _, p := range list {
		r.st.printf("  %s from %s: %s\n", r.st.paint(ansiBold, p.ID), p.Agent, proposalWhat(p))
		for _, it := range p.Items {
			r.st.printf("    - %s\n", it)
		}
		hint := issueFlagHint(issueFlag)
		r.st.printf("    td todo accept %s%s, or td todo reject %s%s --reason \"why\"\n", p.ID, hint, p.ID, hint)
	}
}

// proposalCommands are td todo propose, accept, reject and proposals:
// subagent proposals to the bound issue's list.
func (r *runner) proposalCommands() []*cli.Command {
	issueFlag := &cli.StringFlag{Name: "issue", Usage: "operators: the issue whose proposals to decide instead of the bound one"}
	return []*cli.Command{
		{
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
Accepted steps go under "### PHASE (from primary.subagents.ui)"; the phase
defaults to the last segment of the path. With config
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
				s, se, err := r.openActor(c)
				if err != nil {
					return err
				}
				res, err := todos.Propose(s, se, todos.ProposeRequest{Items: items, Phase: c.String("phase"), Kind: domain.TodoKind(c.String("kind"))})
				if err != nil {
					return err
				}
				return r.printProposed(se, res)
			},
		},
		{
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
			Flags: []cli.Flag{issueFlag},
			Action: func(c *cli.Context) error {
				a, s, se, err := r.actorArgs(c, 1, 1, "PROPOSAL (its ID or part of an item's text)")
				if err != nil {
					return err
				}
				res, err := todos.AcceptProposal(s, se, c.String("issue"), a[0])
				if err != nil {
					return err
				}
				return r.printAccepted(res, c.String("issue"))
			},
		},
		{
			Name:      "reject",
			Usage:     "reject a subagent's proposal, with a reason; the list is untouched",
			ArgsUsage: "PROPOSAL",
			Description: `PROPOSAL is the proposal's ID or a unique part of one of its items' text.
Only the proposing subagent's root agent or an operator may reject; the
reason is recorded in the ledger for the subagent to read (td todo
proposals).

Examples:
   td todo reject p7k2 --reason "the design team owns the colour tokens"`,
			Flags: []cli.Flag{issueFlag, reasonFlag("why (required): the subagent reads it")},
			Action: func(c *cli.Context) error {
				a, s, se, err := r.actorArgs(c, 1, 1, "PROPOSAL --reason WHY")
				if err != nil {
					return err
				}
				res, err := todos.RejectProposal(s, se, c.String("issue"), a[0], c.String("reason"))
				if err != nil {
					return err
				}
				if r.st.json {
					return r.st.emitJSON(map[string]any{"issue": todoIssueJSON{ID: res.Issue.ID, Title: res.Issue.Title, Status: res.Issue.Status},
						"proposal": proposalJSONOf(res.Proposal)})
				}
				p := res.Proposal
				r.st.printf("Rejected %s from %s (%s) on %s: %s\n", p.ID, p.Agent, proposalWhat(p), res.Issue.ID, p.Reason)
				return nil
			},
		},
		{
			Name:  "proposals",
			Usage: "list the proposals on the issue: waiting, accepted and rejected",
			Description: `For a subagent, the issue it proposes to (see td todo propose); for others,
the bound issue, or --issue for operators. Each proposal shows its items and
what became of it, with the reason of a rejection.

Examples:
   td todo proposals
   td todo proposals --issue td-k3x9qa --json`,
			Flags: []cli.Flag{issueFlag},
			Action: func(c *cli.Context) error {
				_, s, se, err := r.actorArgs(c, 0, 0, "[--issue ID]")
				if err != nil {
					return err
				}
				is, list, err := todos.ProposalsOn(s, se, c.String("issue"))
				if err != nil {
					return err
				}
				if r.st.json {
					return r.st.emitJSON(map[string]any{"issue": todoIssueJSON{ID: is.ID, Title: is.Title, Status: is.Status},
						"proposals": proposalsJSONOf(list)})
				}
				r.st.printf("%s %s\n\n", r.st.paint(ansiBold, is.ID), is.Title)
				if len(list) == 0 {
					r.st.printf("No proposals yet. Subagents propose todos with td todo propose \"first\" \"second\".\n")
					return nil
				}
				for _, p := range list {
					r.st.printf("%s from %s: %s, %s\n", r.st.paint(ansiBold, p.ID), p.Agent, proposalWhat(p), proposalState(p))
					for _, it := range p.Items {
						r.st.printf("  - %s\n", it)
					}
				}
				return nil
			},
		},
	}
}

// proposalState says what became of a proposal.
func proposalState(p todos.Proposal) string {
	switch p.State {
	case policy.ProposalAccepted:
		s := "accepted by " + p.DecidedBy
		if p.Auto {
			s = "accepted at once by config"
		}
		if skipped := len(p.Items) - len(p.Added); skipped > 0 {
			s += fmt.Sprintf(" (%d already on the list)", skipped)
		}
		return s
	case policy.ProposalRejected:
		return fmt.Sprintf("rejected by %s: %s", p.DecidedBy, p.Reason)
	}
	return "waiting"
}

// printProposed tells the subagent what became of its proposal and what
// happens next.
func (r *runner) printProposed(se *repo.Session, res *todos.ProposeResult) error {
	p := res.Proposal
	if r.st.json {
		via := ""
		if res.Via != nil {
			via = res.Via.ID
		}
		return r.st.emitJSON(map[string]any{"issue": todoIssueJSON{ID: res.Issue.ID, Title: res.Issue.Title, Status: res.Issue.Status},
			"proposal": proposalJSONOf(p), "via_session": via, "accepted": res.Accepted != nil})
	}
	whose := "the issue this session is bound to"
	if res.Via != nil {
		whose = fmt.Sprintf("the issue %s's session %s is bound to", res.Via.Agent, res.Via.ID)
	}
	r.st.printf("Proposed %s to %s %s, %s:\n\n%s\n", r.st.paint(ansiBold, p.ID), res.Issue.ID, res.Issue.Title, whose, proposalBlock(p, p.Items))
	if res.Accepted != nil {
		r.st.printf("Accepted at once (config agents.%s.todo_review is auto): %s added.\n", se.Agent, countOf(p.Kind, len(res.Accepted.Added)))
		return nil
	}
	root := se.Agent.Root()
	r.st.printf("It waits for %s or an operator to run td todo accept %s (or td todo reject %s); td todo proposals shows what became of it.\n", root, p.ID, p.ID)
	return nil
}

// printAccepted reports an acceptance, then the whole list.
func (r *runner) printAccepted(res *todos.ProposalDecision, issueFlag string) error {
	p := res.Proposal
	if r.st.json {
		return r.st.emitJSON(map[string]any{"proposal": proposalJSONOf(p), "skipped": nonNilStrings(res.Skipped), "todos": r.todoJSONOf(res.Todo)})
	}
	where := fmt.Sprintf("under \"%s (from %s)\"", p.Phase, p.Agent)
	if p.Kind == domain.KindCriterion {
		where = "to the acceptance criteria"
	}
	r.st.printf("Accepted %s from %s: %s added %s.\n", p.ID, p.Agent, countOf(p.Kind, len(res.Added)), where)
	for _, t := range res.Skipped {
		r.st.printf("Skipped %q: it was already on the list.\n", t)
	}
	r.st.printf("\n")
	return r.printTodosFor(res.Todo, issueFlag)
}
