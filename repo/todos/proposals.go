package todos

import (
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// proposalSuffixLen is the number of random base36 characters after the
// "p" of a proposal ID: short enough to type, drawn at random rather than
// counted so that two branches proposing to one issue (their ledgers merge
// by union) do not both mint "p1".
const proposalSuffixLen = 3

// Proposal is a subagent's proposed todos for an issue, as the issue's
// ledger tells it: proposed once, then accepted or rejected once.
type Proposal struct {
	// ID names the proposal within its issue: "p" and three base36
	// characters, such as p7k2.
	ID string
	// Agent and Session are the proposing subagent's path and session.
	Agent   domain.AgentPath
	Session string
	// Kind is step or criterion; Phase is the phase the steps are for, ""
	// for criteria: accepted, they join the list's phase of that name, or
	// make "### Phase (from Agent)" when it has none.
	Kind  domain.TodoKind
	Phase string
	// Items are the proposed texts.
	Items      []string
	ProposedAt time.Time
	// State is policy.ProposalPending, ProposalAccepted or ProposalRejected.
	State string
	// DecidedBy and DecidedAt say who accepted or rejected it, and when.
	DecidedBy string
	DecidedAt time.Time
	// Auto is true when config (todo_review: auto) accepted it at once.
	Auto bool
	// Added are the items an acceptance put on the list; an item already
	// there by then is left out.
	Added []string
	// Reason is why it was rejected.
	Reason string
	// Into is the heading of the phase an acceptance put the steps in,
	// when that heading does not name the proposer (the steps joined a
	// phase of the same name); "" otherwise.
	Into string
}

// proposalsOf reads the proposals out of an issue's ledger, in the order
// they were made. A decision applies to the first undecided proposal with
// its ID; a decision naming no such proposal is ignored.
func proposalsOf(entries []audit.Entry) []Proposal {
	var out []Proposal
	for _, e := range entries {
		id, _ := e.Details["proposal"].(string)
		if id == "" {
			continue
		}
		switch e.Action {
		case audit.ActionTodoProposed:
			p := Proposal{ID: id, Session: e.Session, ProposedAt: e.TS, State: policy.ProposalPending, Items: detailStrings(e.Details["items"])}
			agent, _ := e.Details["agent"].(string)
			kind, _ := e.Details["kind"].(string)
			p.Agent, p.Kind = domain.AgentPath(agent), domain.TodoKind(kind)
			p.Phase, _ = e.Details["phase"].(string)
			if p.Kind == "" {
				p.Kind = domain.KindStep
			}
			out = append(out, p)
		case audit.ActionSublistAccepted, audit.ActionSublistRejected:
			for i := range out {
				p := &out[i]
				if p.ID != id || p.State != policy.ProposalPending {
					continue
				}
				p.DecidedBy, p.DecidedAt = e.Session, e.TS
				if e.Action == audit.ActionSublistRejected {
					p.State, p.Reason = policy.ProposalRejected, e.Reason
				} else {
					p.State = policy.ProposalAccepted
					p.Added = detailStrings(e.Details["items"])
					p.Auto, _ = e.Details["auto"].(bool)
					p.Into, _ = e.Details["into"].(string)
				}
				break
			}
		}
	}
	return out
}

// detailStrings reads a list of strings from a ledger detail, as written
// ([]string) or as decoded from JSON ([]any).
func detailStrings(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// issueProposals reads the proposals on an issue. Unreadable ledger lines
// are skipped: td check reports them, and the readable ones still count.
func issueProposals(s *repo.Store, id string) ([]Proposal, error) {
	entries, _, err := s.Ledger(id)
	if err != nil {
		return nil, err
	}
	return proposalsOf(entries), nil
}

// pendingProposals returns the proposals on the issue still waiting for a
// decision.
func PendingProposals(s *repo.Store, id string) ([]Proposal, error) {
	all, err := issueProposals(s, id)
	if err != nil {
		return nil, err
	}
	var out []Proposal
	for _, p := range all {
		if p.State == policy.ProposalPending {
			out = append(out, p)
		}
	}
	return out, nil
}

// proposalTarget finds the issue a subagent proposes to. A subagent never
// names an issue and cannot bind one itself, so: the issue its own session
// is bound to, if any (a session td bound for it); else the issue bound to
// the most recently started session of its root agent (the first segment of
// its path) that last acted in this work tree: runtimes are the clone's,
// and another work tree's agent works on another branch. via is that root
// session, nil when the subagent's own binding decided.
func proposalTarget(s *repo.Store, se *repo.Session) (id string, via *repo.Session, err error) {
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return "", nil, err
	}
	if rt.BoundIssue != "" && issueExists(s, rt.BoundIssue) {
		return rt.BoundIssue, nil, nil
	}
	root := se.Agent.Root()
	ids, err := s.RuntimeIDs()
	if err != nil {
		return "", nil, err
	}
	type candidate struct {
		se    *repo.Session
		issue string
	}
	var best []candidate // the newest root sessions, all started in the same second
	for _, sid := range ids {
		if sid == se.ID {
			continue
		}
		// The local runtime first: it is small, and most sessions are
		// not bound.
		ort, err := s.Runtime(sid)
		if err != nil || ort.BoundIssue == "" || ort.WorkTree != "" && ort.WorkTree != s.Root {
			continue // another work tree's agent works on another branch
		}
		other, err := s.Session(sid)
		if err != nil || other.Agent != root || !issueExists(s, ort.BoundIssue) {
			continue
		}
		c := candidate{other, ort.BoundIssue}
		switch {
		case len(best) == 0 || other.CreatedAt.After(best[0].se.CreatedAt):
			best = []candidate{c}
		case other.CreatedAt.Equal(best[0].se.CreatedAt):
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		return "", nil, repo.Errorf(repo.CodeRefused, "session %s has no issue to propose to: no session of its root agent %s is bound to an issue in this checkout; ask the operator to bind the root agent's session to one (td session bind ID)", se.ID, root)
	}
	for _, c := range best[1:] {
		if c.issue != best[0].issue {
			return "", nil, repo.Errorf(repo.CodeRefused, "root agent %s has two sessions started at the same time bound to different issues (%s on %s, %s on %s), so td cannot tell which one %s reports to; ask the operator to unbind one (td session unbind)",
				root, best[0].se.ID, best[0].issue, c.se.ID, c.issue, se.Agent)
		}
	}
	return best[0].issue, best[0].se, nil
}

func issueExists(s *repo.Store, id string) bool {
	if !repo.ValidIssueID(id) {
		return false
	}
	_, err := os.Lstat(s.IssuePath(id))
	return err == nil
}

// ProposalsOn returns every proposal on the issue the session works on:
// for a subagent the issue it proposes to, for others the bound issue (or
// ref, for operators). The issue comes back too.
func ProposalsOn(s *repo.Store, se *repo.Session, ref string) (*repo.Issue, []Proposal, error) {
	var id string
	var err error
	if se.IsSubagent() && ref == "" {
		id, _, err = proposalTarget(s, se)
	} else {
		id, err = todoIssue(s, se, ref, true)
	}
	if err != nil {
		return nil, nil, err
	}
	is, err := s.ReadIssueFile(id)
	if err != nil {
		return nil, nil, err
	}
	list, err := issueProposals(s, id)
	return is, list, err
}

// ProposeRequest is a subagent's proposal: the texts, and where they go.
type ProposeRequest struct {
	Items []string
	// Kind is step (the default) or criterion.
	Kind domain.TodoKind
	// Phase names the steps' phase; empty means the last segment of the
	// subagent's path (ui for primary.subagents.ui). Criteria have none.
	Phase string
}

// ProposeResult says what a proposal did.
type ProposeResult struct {
	Issue    *repo.Issue
	Proposal Proposal
	// Via is the root agent's session whose binding named the issue; nil
	// when the subagent's own session is bound to it.
	Via *repo.Session
	// Accepted is set when config accepted the proposal at once.
	Accepted *ProposalDecision
	// Heading is the phase heading the steps would join if accepted now,
	// "" for criteria.
	Heading string
}

// ProposalDecision is what accepting or rejecting a proposal did.
type ProposalDecision struct {
	Issue    *repo.Issue
	Proposal Proposal
	// Added are the items put on the list; Skipped were on it already.
	Added, Skipped []string
	// Todo is the list after an acceptance, nil after a rejection.
	Todo *TodoResult
	// Heading is the phase heading the accepted steps joined, "" for
	// criteria and after a rejection.
	Heading string
}

// Propose records a subagent's proposed todos in the ledger of the issue
// its root agent works on (see proposalTarget). The issue file is not
// touched unless config agents.<path>.todo_review is auto, in which case
// the proposal is accepted at once, as the root would.
func Propose(s *repo.Store, se *repo.Session, req ProposeRequest) (*ProposeResult, error) {
	if err := policy.MayPropose(se.Agent); err != nil {
		return nil, err
	}
	kind, phase := req.Kind, strings.TrimSpace(req.Phase)
	switch kind {
	case "":
		kind = domain.KindStep
	case domain.KindStep, domain.KindCriterion:
	default:
		return nil, repo.Errorf(repo.CodeInvalid, "kind %q must be step or criterion", kind)
	}
	if kind == domain.KindCriterion && phase != "" {
		return nil, repo.Errorf(repo.CodeInvalid, "acceptance criteria have no phases; drop --phase")
	}
	if kind == domain.KindStep && phase == "" {
		phase = string(se.Agent[strings.LastIndex(string(se.Agent), ".")+1:])
	}
	if len(req.Items) == 0 {
		return nil, repo.Errorf(repo.CodeInvalid, "propose needs the text of at least one todo: td todo propose \"first step\" \"second step\"")
	}
	if err := policy.CheckText("phase", phase); err != nil {
		return nil, err
	}
	items := make([]string, len(req.Items))
	for i, t := range req.Items {
		if err := policy.CheckText("todo text", t); err != nil {
			return nil, err
		}
		items[i] = strings.TrimSpace(t)
	}
	id, via, err := proposalTarget(s, se)
	if err != nil {
		return nil, err
	}
	res := &ProposeResult{Via: via}
	err = s.Update(func(tx *repo.Tx) error {
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		res.Issue = is
		// Refuse now what accepting would refuse: empty or multi-line
		// texts, duplicates of the list or of each other.
		cl := checklistFor(is)
		into, _ := proposalPhase(cl, kind, phase, se.Agent)
		if err := todoError(cl.Add(kind, into.Name, into.Origin, items)); err != nil {
			return err
		}
		res.Heading = phaseHeading(into)
		existing, err := issueProposals(s, id)
		if err != nil {
			return err
		}
		pid, err := newProposalID(s, existing)
		if err != nil {
			return err
		}
		p := Proposal{ID: pid, Agent: se.Agent, Session: se.ID, Kind: kind, Phase: phase, Items: items,
			ProposedAt: s.Now(), State: policy.ProposalPending}
		details := map[string]any{"proposal": pid, "agent": string(se.Agent), "items": items, "kind": string(kind)}
		if phase != "" {
			details["phase"] = phase
		}
		if err := s.AppendLedger(tx, id, audit.Entry{TS: p.ProposedAt, Session: se.ID, Action: audit.ActionTodoProposed, Details: details}); err != nil {
			return err
		}
		res.Proposal = p
		if !policy.AutoAccepts(s.Config.TodoReview(se.Agent)) {
			return nil
		}
		dec, err := accept(s, tx, se, is, p, true)
		if err != nil {
			return err
		}
		res.Accepted, res.Proposal = dec, dec.Proposal
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// proposalPhase is the phase a proposal's steps join on cl, as
// policy.ProposalPhase decides: the phase already named so, else a new
// one with the agent as its origin. Criteria have none.
func proposalPhase(cl *markdown.Checklist, kind domain.TodoKind, phase string, agent domain.AgentPath) (into policy.PhaseRef, joins bool) {
	if kind == domain.KindCriterion {
		return policy.PhaseRef{}, false
	}
	var existing []policy.PhaseRef
	for _, ph := range cl.Phases() {
		existing = append(existing, policy.PhaseRef{Name: ph.Name, Origin: ph.Origin})
	}
	return policy.ProposalPhase(existing, phase, agent)
}

// phaseHeading is a phase's heading as the file writes it, "" for none.
func phaseHeading(p policy.PhaseRef) string {
	if p.Origin == "" {
		return p.Name
	}
	return p.Name + " (from " + string(p.Origin) + ")"
}

// checklistFor parses the issue's checklist for adding items: a body td
// creates starts after one blank line, as in a new issue file with a
// description.
func checklistFor(is *repo.Issue) *markdown.Checklist {
	if len(is.Doc.Body) == 0 {
		return markdown.ParseChecklist([]byte(is.Doc.EOL()))
	}
	return is.Checklist()
}

// newProposalID draws "p" and three base36 characters until the ID is new
// on the issue.
func newProposalID(s *repo.Store, existing []Proposal) (string, error) {
	taken := map[string]bool{}
	for _, p := range existing {
		taken[p.ID] = true
	}
	src := s.IDs()
	for i := 0; i < 100; i++ {
		suf, err := src.Suffix(proposalSuffixLen)
		if err != nil {
			return "", err
		}
		if id := "p" + suf; !taken[id] {
			return id, nil
		}
	}
	return "", repo.Errorf(repo.CodeInternal, "could not find a free proposal ID after 100 draws")
}

// AcceptProposal adds a pending proposal's items to the issue's list, with
// the subagent as their origin, and records the acceptance in the ledger.
// ref is the proposal's ID or a unique part of one of its items' text;
// issueRef names the issue for operators, "" for the bound one.
func AcceptProposal(s *repo.Store, se *repo.Session, issueRef, ref string) (*ProposalDecision, error) {
	return decide(s, se, issueRef, ref, policy.DecisionAccept, "")
}

// RejectProposal records in the ledger that a pending proposal was turned
// down, and why; the list is untouched.
func RejectProposal(s *repo.Store, se *repo.Session, issueRef, ref, reason string) (*ProposalDecision, error) {
	if err := policy.CheckText("reason", reason); err != nil {
		return nil, err
	}
	return decide(s, se, issueRef, ref, policy.DecisionReject, reason)
}

func decide(s *repo.Store, se *repo.Session, issueRef, ref, decision, reason string) (*ProposalDecision, error) {
	if err := policy.MayReviewProposals(se.Agent); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if decision == policy.DecisionReject && reason == "" {
		return nil, repo.Errorf(repo.CodeInvalid, "a rejection needs a reason for the subagent: td todo reject %s --reason \"why\"", ref)
	}
	id, err := todoIssue(s, se, issueRef, false)
	if err != nil {
		return nil, err
	}
	var res *ProposalDecision
	err = s.Update(func(tx *repo.Tx) error {
		list, err := issueProposals(s, id)
		if err != nil {
			return err
		}
		i, err := findProposal(list, ref, id)
		if err != nil {
			return err
		}
		p := list[i]
		if err := policy.MayDecideProposal(policy.ProposalReview{Role: s.EffectiveRole(se), Agent: se.Agent,
			ID: p.ID, Proposer: p.Agent, State: p.State, Decision: decision}); err != nil {
			return err
		}
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		if decision == policy.DecisionAccept {
			res, err = accept(s, tx, se, is, p, false)
			return err
		}
		now := s.Now()
		p.State, p.DecidedBy, p.DecidedAt, p.Reason = policy.ProposalRejected, se.ID, now, reason
		res = &ProposalDecision{Issue: is, Proposal: p}
		return s.AppendLedger(tx, id, audit.Entry{TS: now, Session: se.ID, Action: audit.ActionSublistRejected,
			Details: map[string]any{"proposal": p.ID, "agent": string(p.Agent)}, Reason: reason})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// accept puts a proposal's items on the issue's list inside an update:
// steps at the end of the phase of that name, or under a new "### Phase
// (from agent)", criteria at the end of the acceptance criteria. Items already on the list by now are skipped rather
// than refusing the rest. The list's invariants are kept as after any todo
// change, and the acceptance is a ledger event (criteria also get their
// criterion_added, as an agent's addition).
func accept(s *repo.Store, tx *repo.Tx, se *repo.Session, is *repo.Issue, p Proposal, auto bool) (*ProposalDecision, error) {
	cl := checklistFor(is)
	into, joins := proposalPhase(cl, p.Kind, p.Phase, p.Agent)
	res := &ProposalDecision{Issue: is, Heading: phaseHeading(into)}
	remaining := append([]string(nil), p.Items...)
	for len(remaining) > 0 {
		err := cl.Add(p.Kind, into.Name, into.Origin, remaining)
		var dup *markdown.DuplicateError
		if !errors.As(err, &dup) {
			if err != nil {
				return nil, todoError(err)
			}
			break
		}
		k := indexFold(remaining, dup.Text)
		if k < 0 {
			return nil, todoError(err)
		}
		res.Skipped = append(res.Skipped, remaining[k])
		remaining = append(remaining[:k:k], remaining[k+1:]...)
	}
	res.Added = remaining
	now := s.Now()
	p.State, p.DecidedBy, p.DecidedAt, p.Auto, p.Added = policy.ProposalAccepted, se.ID, now, auto, repo.NonNil(res.Added)
	res.Proposal = p
	fixes := cl.Normalize()
	changed := string(cl.Bytes()) != string(is.Doc.Body)
	res.Todo = todoResult(is, cl, changed, -1)
	res.Todo.Fixes = fixes
	res.Todo.ProposedCriteria = p.Kind == domain.KindCriterion && len(res.Added) > 0
	if changed {
		is.Doc.Body = cl.Bytes()
		if err := s.WriteIssueFile(tx, is); err != nil {
			return nil, err
		}
		now = is.UpdatedAt
	}
	details := map[string]any{"proposal": p.ID, "agent": string(p.Agent), "items": p.Added}
	if len(res.Skipped) > 0 {
		details["skipped"] = res.Skipped
	}
	if auto {
		details["auto"] = true
	}
	if joins && len(res.Added) > 0 && into.Origin != p.Agent {
		// The steps joined a phase whose heading does not name this
		// subagent: the ledger keeps where they went and whose they are.
		details["into"] = res.Heading
		res.Proposal.Into = res.Heading
	}
	ledger := []audit.Entry{{Action: audit.ActionSublistAccepted, Details: details}}
	if p.Kind == domain.KindCriterion {
		for _, t := range res.Added {
			ledger = append(ledger, audit.Entry{Action: audit.ActionCriterionAdded, Details: map[string]any{"text": t, "by": string(domain.RoleAgent), "origin": string(p.Agent)}})
		}
	}
	for _, e := range ledger {
		e.TS, e.Session = now, se.ID
		if err := s.AppendLedger(tx, is.ID, e); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// indexFold finds text in list ignoring case and surrounding space.
func indexFold(list []string, text string) int {
	for i, t := range list {
		if strings.EqualFold(strings.TrimSpace(t), strings.TrimSpace(text)) {
			return i
		}
	}
	return -1
}

// findProposal addresses a proposal as accept and reject do: by its ID,
// else by an item's whole text, else by a part of one (ignoring case); a
// waiting proposal must match alone, and with none waiting the last
// decided one that matches is returned, so that the refusal can say what
// became of it.
func findProposal(list []Proposal, ref, issue string) (int, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return -1, repo.Errorf(repo.CodeInvalid, "name the proposal by its ID or a part of one of its items: td todo proposals lists them")
	}
	byID := -1
	for i, p := range list {
		if strings.EqualFold(p.ID, ref) && (byID < 0 || list[byID].State != policy.ProposalPending) {
			byID = i
		}
	}
	if byID >= 0 {
		return byID, nil
	}
	// An item's whole text (ignoring case) first, then a part of one.
	var waiting, decided []int
	for _, match := range []func(item string) bool{
		func(item string) bool { return strings.EqualFold(item, ref) },
		func(item string) bool { return strings.Contains(strings.ToLower(item), strings.ToLower(ref)) },
	} {
		for i, p := range list {
			if slices.ContainsFunc(p.Items, match) {
				if p.State == policy.ProposalPending {
					waiting = append(waiting, i)
				} else {
					decided = append(decided, i)
				}
			}
		}
		if len(waiting) > 0 || len(decided) > 0 {
			break
		}
	}
	switch {
	case len(waiting) == 1:
		return waiting[0], nil
	case len(waiting) > 1:
		ids := make([]string, len(waiting))
		for k, i := range waiting {
			ids[k] = list[i].ID
		}
		return -1, repo.Errorf(repo.CodeAmbiguous, "%q is in %d waiting proposals (%s); name one by its ID", ref, len(waiting), strings.Join(ids, ", "))
	case len(decided) > 0:
		return decided[len(decided)-1], nil
	}
	var ids []string
	for _, p := range list {
		if p.State == policy.ProposalPending {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		return -1, repo.Errorf(repo.CodeNotFound, "no proposal matches %q, and none is waiting on %s", ref, issue)
	}
	return -1, repo.Errorf(repo.CodeNotFound, "no proposal matches %q; waiting on %s: %s", ref, issue, strings.Join(ids, ", "))
}
