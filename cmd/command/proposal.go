package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/todos"
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
	Into       string           `json:"into,omitempty"`
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
		DecidedAt: stamp(p.DecidedAt), Auto: p.Auto, Added: nonNilStrings(p.Added), Reason: p.Reason, Into: p.Into}
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
		return fmt.Sprintf("%d %s", n, domain.Plural(n, "criterion", "criteria"))
	}
	return fmt.Sprintf("%d %s", n, domain.Plural(n, "step", "steps"))
}

// proposalBlock renders items as they would join the list: under the
// heading of the phase they join (heading), or the acceptance criteria
// heading.
func proposalBlock(p todos.Proposal, heading string, items []string) string {
	var b strings.Builder
	if p.Kind == domain.KindCriterion {
		b.WriteString("## Acceptance criteria\n")
	} else {
		fmt.Fprintf(&b, "### %s\n", heading)
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

// proposalState says what became of a proposal.
func proposalState(p todos.Proposal) string {
	switch p.State {
	case policy.ProposalAccepted:
		s := "accepted by " + p.DecidedBy
		if p.Auto {
			s = "accepted at once by config"
		}
		if p.Into != "" {
			s += fmt.Sprintf(", under %q", p.Into)
		}
		if skipped := len(p.Items) - len(p.Added); skipped > 0 {
			s += fmt.Sprintf(" (%d already on the list)", skipped)
		}
		return s
	case policy.ProposalRejected:
		return fmt.Sprintf("rejected by %s: %s", safe(p.DecidedBy), safe(p.Reason))
	}
	return "waiting"
}
