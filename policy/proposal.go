package policy

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// Proposal states. A subagent's proposal waits (pending) until the root
// agent or an operator accepts or rejects it; either decision is final.
const (
	ProposalPending  = "pending"
	ProposalAccepted = "accepted"
	ProposalRejected = "rejected"
)

// Todo review modes, config agents.<path>.todo_review: review (the default)
// holds a subagent's proposals for its root agent; auto accepts them at once.
const (
	TodoReviewReview = "review"
	TodoReviewAuto   = "auto"
)

// Decisions on a proposal, as the commands name them.
const (
	DecisionAccept = "accept"
	DecisionReject = "reject"
)

// ValidTodoReview checks a todo_review value from the config; empty means
// the default, review.
func ValidTodoReview(mode string) error {
	switch mode {
	case "", TodoReviewReview, TodoReviewAuto:
		return nil
	}
	return fmt.Errorf("todo_review %q must be %s or %s", mode, TodoReviewReview, TodoReviewAuto)
}

// AutoAccepts reports whether a subagent whose config says mode has its
// proposals accepted at once rather than held for review.
func AutoAccepts(mode string) bool { return mode == TodoReviewAuto }

// MayPropose lets only subagents propose todos: a root agent or an operator
// changes the list directly, so a proposal from one would wait on itself.
func MayPropose(agentPath domain.AgentPath) error {
	switch {
	case agentPath.IsSubagent():
		return nil
	case agentPath == "":
		return refuse("td todo propose is for subagent sessions; an operator adds todos directly with td todo add")
	}
	return refuse(fmt.Sprintf("%s is a root agent: it adds todos directly with td todo add; td todo propose is for its subagents", agentPath))
}

// MayReviewProposals refuses subagent sessions any decision on proposals:
// a subagent never accepts its own or a sibling's todos.
func MayReviewProposals(agentPath domain.AgentPath) error {
	if agentPath.IsSubagent() {
		return refuse(fmt.Sprintf("subagent sessions cannot accept or reject proposals; the root agent %s or an operator decides", agentPath.Root()))
	}
	return nil
}

// ProposalReview is what the rules need to know about one decision on a
// proposal.
type ProposalReview struct {
	// Role and Agent describe the deciding session; Agent is "" for an
	// operator session.
	Role  domain.Role
	Agent domain.AgentPath
	// ID, Proposer and State describe the proposal.
	ID       string
	Proposer domain.AgentPath
	State    string
	// Decision is DecisionAccept or DecisionReject.
	Decision string
}

// MayDecideProposal decides whether a session may accept or reject a
// proposal: operators may decide any; a root agent only its own subagents'
// (the proposer's path starts with its own); subagents none. A proposal is
// decided once: accepting or rejecting it again is refused with its state.
func MayDecideProposal(r ProposalReview) error {
	if !r.Role.Valid() {
		return fmt.Errorf("unknown session role %q: want operator, member or agent", r.Role)
	}
	if r.Decision != DecisionAccept && r.Decision != DecisionReject {
		return fmt.Errorf("unknown decision %q: want accept or reject", r.Decision)
	}
	switch r.State {
	case ProposalPending, ProposalAccepted, ProposalRejected:
	default:
		return fmt.Errorf("unknown proposal state %q", r.State)
	}
	if err := MayReviewProposals(r.Agent); err != nil {
		return err
	}
	root := r.Proposer.Root()
	if r.Role != domain.RoleOperator && r.Agent != root {
		return refuse(fmt.Sprintf("only %s (the root agent of %s) or an operator may %s proposal %s", root, r.Proposer, r.Decision, r.ID))
	}
	switch {
	case r.State == ProposalAccepted && r.Decision == DecisionAccept:
		return refuse(fmt.Sprintf("proposal %s was already accepted; its items are on the list", r.ID))
	case r.State == ProposalAccepted:
		return refuse(fmt.Sprintf("proposal %s was already accepted; drop the items you do not want with td todo drop", r.ID))
	case r.State == ProposalRejected && r.Decision == DecisionAccept:
		return refuse(fmt.Sprintf("proposal %s was rejected, and a rejection is final; ask %s to propose the items again", r.ID, r.Proposer))
	case r.State == ProposalRejected:
		return refuse(fmt.Sprintf("proposal %s was already rejected; there is nothing left to decide", r.ID))
	}
	return nil
}

// PhaseRef names a phase of a checklist: its heading's name and the
// "(from …)" origin, "" for none.
type PhaseRef struct {
	Name   string
	Origin domain.AgentPath
}

// ProposalPhase decides where an accepted proposal's steps go, given the
// list's phases in document order: into the phase already named name,
// ignoring case and runs of white space (the one from this agent if
// several are, else the first), under its heading as it is written; only
// when none is does the proposal make a new phase "name", with no
// origin: the plan reads as one plan, and who proposed each step is the
// ledger's sublist_accepted entry's to keep. joins reports whether an
// existing phase takes the steps. An origin a heading already carries
// ("name (from agent)", written by hand or by an older td) is read and
// kept.
func ProposalPhase(existing []PhaseRef, name string, agent domain.AgentPath) (into PhaseRef, joins bool) {
	key := phaseKey(name)
	first := -1
	for i, p := range existing {
		if phaseKey(p.Name) != key {
			continue
		}
		if p.Origin == agent {
			return p, true
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		return existing[first], true
	}
	return PhaseRef{Name: strings.TrimSpace(name)}, false
}

// phaseKey is the form phase names are compared in: lower case, each run
// of white space one space, none around.
func phaseKey(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}
