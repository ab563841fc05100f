package policy

import (
	"errors"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestMayPropose(t *testing.T) {
	rows := []struct {
		path    domain.AgentPath
		refusal string
	}{
		{path: "primary.subagents.ui"},
		{path: "primary.ui"},
		{path: "", refusal: "td todo propose is for subagent sessions; an operator adds todos directly with td todo add"},
		{path: "primary", refusal: "primary is a root agent: it adds todos directly with td todo add; td todo propose is for its subagents"},
	}
	for _, row := range rows {
		t.Run(string(row.path), func(t *testing.T) {
			checkRefusal(t, MayPropose(row.path), row.refusal, false)
		})
	}
}

func TestMayDecideProposal(t *testing.T) {
	const (
		sub      = "primary.subagents.ui"
		deep     = "primary.subagents.ui.icons"
		subRef   = "subagent sessions cannot accept or reject proposals; the root agent primary or an operator decides"
		acceptOK = "proposal p1x was already accepted; its items are on the list"
		rejectOK = "proposal p1x was already accepted; drop the items you do not want with td todo drop"
		acceptNo = "proposal p1x was rejected, and a rejection is final; ask primary.subagents.ui to propose the items again"
		rejectNo = "proposal p1x was already rejected; there is nothing left to decide"
	)
	rows := []struct {
		name     string
		role     domain.Role
		agent    domain.AgentPath
		proposer domain.AgentPath
		state    string
		decision string
		refusal  string // exact refusal; "" when allowed
		invalid  bool   // bad input rather than a refusal
	}{
		// Who decides a pending proposal.
		{name: "operator accepts", role: domain.RoleOperator, proposer: sub, state: ProposalPending, decision: DecisionAccept},
		{name: "operator rejects", role: domain.RoleOperator, proposer: sub, state: ProposalPending, decision: DecisionReject},
		{name: "root accepts", role: domain.RoleAgent, agent: "primary", proposer: sub, state: ProposalPending, decision: DecisionAccept},
		{name: "root rejects", role: domain.RoleAgent, agent: "primary", proposer: sub, state: ProposalPending, decision: DecisionReject},
		{name: "root accepts a deep subagent", role: domain.RoleAgent, agent: "primary", proposer: deep, state: ProposalPending, decision: DecisionAccept},
		{name: "another root", role: domain.RoleAgent, agent: "reviewer", proposer: sub, state: ProposalPending, decision: DecisionAccept,
			refusal: "only primary (the root agent of primary.subagents.ui) or an operator may accept proposal p1x"},
		{name: "a root whose name is a prefix", role: domain.RoleAgent, agent: "prim", proposer: sub, state: ProposalPending, decision: DecisionReject,
			refusal: "only primary (the root agent of primary.subagents.ui) or an operator may reject proposal p1x"},
		{name: "a member, a person not listed in operators", role: domain.RoleMember, proposer: sub, state: ProposalPending, decision: DecisionAccept,
			refusal: "only primary (the root agent of primary.subagents.ui) or an operator may accept proposal p1x"},
		{name: "the proposer itself", role: domain.RoleAgent, agent: sub, proposer: sub, state: ProposalPending, decision: DecisionAccept, refusal: subRef},
		{name: "a sibling", role: domain.RoleAgent, agent: "primary.subagents.api", proposer: sub, state: ProposalPending, decision: DecisionReject, refusal: subRef},

		// A decision is final, whoever asks.
		{name: "accept accepted", role: domain.RoleOperator, proposer: sub, state: ProposalAccepted, decision: DecisionAccept, refusal: acceptOK},
		{name: "reject accepted", role: domain.RoleAgent, agent: "primary", proposer: sub, state: ProposalAccepted, decision: DecisionReject, refusal: rejectOK},
		{name: "accept rejected", role: domain.RoleAgent, agent: "primary", proposer: sub, state: ProposalRejected, decision: DecisionAccept, refusal: acceptNo},
		{name: "reject rejected", role: domain.RoleOperator, proposer: sub, state: ProposalRejected, decision: DecisionReject, refusal: rejectNo},
		// Who may decide is checked before the state.
		{name: "subagent on a decided one", role: domain.RoleAgent, agent: sub, proposer: sub, state: ProposalAccepted, decision: DecisionAccept, refusal: subRef},

		// Bad facts are errors, not refusals.
		{name: "unknown role", role: "", proposer: sub, state: ProposalPending, decision: DecisionAccept, invalid: true},
		{name: "unknown decision", role: domain.RoleOperator, proposer: sub, state: ProposalPending, decision: "maybe", invalid: true},
		{name: "unknown state", role: domain.RoleOperator, proposer: sub, state: "waiting", decision: DecisionAccept, invalid: true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			err := MayDecideProposal(ProposalReview{Role: row.role, Agent: row.agent, ID: "p1x",
				Proposer: row.proposer, State: row.state, Decision: row.decision})
			checkRefusal(t, err, row.refusal, row.invalid)
		})
	}
}

func TestValidTodoReview(t *testing.T) {
	for _, mode := range []string{"", "review", "auto"} {
		if err := ValidTodoReview(mode); err != nil {
			t.Errorf("ValidTodoReview(%q) = %v", mode, err)
		}
	}
	for _, mode := range []string{"Auto", "yes", "manual"} {
		if err := ValidTodoReview(mode); err == nil {
			t.Errorf("ValidTodoReview(%q) accepted", mode)
		}
	}
	if AutoAccepts("") || AutoAccepts(TodoReviewReview) || !AutoAccepts(TodoReviewAuto) {
		t.Errorf("AutoAccepts: only auto accepts at once; review is the default")
	}
}

// checkRefusal fails unless err is the exact refusal (nil when refusal is
// ""), or, with invalid, an error that is not a refusal.
func checkRefusal(t *testing.T, err error, refusal string, invalid bool) {
	t.Helper()
	var r *RefusalError
	switch {
	case invalid:
		if err == nil || errors.As(err, &r) {
			t.Fatalf("got %v; want an error that is not a refusal", err)
		}
	case refusal == "":
		if err != nil {
			t.Fatalf("got %v; want allowed", err)
		}
	default:
		if !errors.As(err, &r) || err.Error() != refusal {
			t.Fatalf("got %v; want refusal %q", err, refusal)
		}
	}
}

func TestProposalPhase(t *testing.T) {
	const ui, api = domain.AgentPath("primary.subagents.ui"), domain.AgentPath("primary.subagents.api")
	mine := PhaseRef{Name: "Frontend"}
	fromUI := PhaseRef{Name: "Frontend", Origin: ui}
	fromAPI := PhaseRef{Name: "Docs", Origin: api}
	tests := []struct {
		name     string
		existing []PhaseRef
		phase    string
		agent    domain.AgentPath
		want     PhaseRef
		joins    bool
	}{
		{"no phases: a new one, no origin", nil, "Frontend", ui, mine, false},
		{"the same name", []PhaseRef{mine}, "Frontend", ui, mine, true},
		{"another case", []PhaseRef{mine}, "frontend", ui, mine, true},
		{"other spacing", []PhaseRef{{Name: "Front end"}}, "  front   END ", ui, PhaseRef{Name: "Front end"}, true},
		{"another name: a new phase, name trimmed", []PhaseRef{mine}, " Docs ", ui, PhaseRef{Name: "Docs"}, false},
		{"another subagent's phase", []PhaseRef{fromAPI}, "docs", ui, fromAPI, true},
		{"its own phase", []PhaseRef{fromUI}, "FRONTEND", ui, fromUI, true},
		{"its own phase over an earlier one", []PhaseRef{mine, fromUI}, "Frontend", ui, fromUI, true},
		{"the first when none is its own", []PhaseRef{fromUI, mine}, "Frontend", api, fromUI, true},
		{"a prefix is not the name", []PhaseRef{mine}, "Front", ui, PhaseRef{Name: "Front"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, joins := ProposalPhase(tt.existing, tt.phase, tt.agent)
			if got != tt.want || joins != tt.joins {
				t.Fatalf("ProposalPhase = %+v, %v; want %+v, %v", got, joins, tt.want, tt.joins)
			}
		})
	}
}
