package sessions

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/todos"
)

// Kinds of context block (spec section 8).
const (
	// ContextStart is the prefix a session starts with.
	ContextStart = "start"
	// ContextCompact is the post-compaction reminder.
	ContextCompact = "compact"
	// ContextResume is the prefix after a pause, with a resume block when
	// the pause was long.
	ContextResume = "resume"
	// ContextNow is td context: the same prefix, at any time.
	ContextNow = "context"
)

// anchorBudget bounds the bytes of anchor text a context block carries, so
// that a long anchors file cannot crowd out the work itself.
const anchorBudget = 1500

// reminderActions is how many recent actions the reminder lists.
const reminderActions = 3

// Context is everything a context block says, as data: the command layer
// prints it as text, markdown or JSON.
type Context struct {
	Kind     string
	Language string
	Session  *repo.Session
	Role     domain.Role
	State    string
	// Scope is what the session may change, one rule a line.
	Scope []string
	// Issue is the bound issue; nil when the session has none.
	Issue *repo.Issue
	// Items is the bound issue's checklist; Rendered is the list as the
	// file shows it.
	Items    []markdown.Item
	Rendered string
	// Active is the todo in progress, nil when none.
	Active *markdown.Item
	// Anchors are the critical and high anchors (critical only in the
	// reminder), most pressing first, within the size budget.
	Anchors []repo.Anchor
	// AnchorsLeft counts the anchors the budget left out.
	AnchorsLeft int
	// Actions are the last actions, newest last (reminder only).
	Actions  []repo.ActionRecord
	Warnings []string
	Stalls   []policy.Stall
	// Proposals counts the subagent proposals waiting on the bound issue.
	Proposals int
	// Next is what to do next, most important first.
	Next        []Step
	Compactions int
	// Resume is set by td session resume.
	Resume *ResumeInfo
	// Rejection is the review that sent the bound issue back, while it
	// stands (LatestRejection); it heads the block.
	Rejection *Rejection
	// Handoff is the bound issue's latest handoff, from this session or
	// another, in this harness or another: the block starts from it.
	Handoff *Handoff
}

// ResumeInfo says how long a session was away.
type ResumeInfo struct {
	Idle          time.Duration
	Previous      time.Time
	PreviousState string
	// Block is true when a resume block leads the prefix (1 h to 48 h).
	Block bool
	// Fresh is true when the session started over (over 48 h).
	Fresh bool
}

// SessionContext builds a context block of the given kind for a session.
func ContextOf(s *repo.Store, se *repo.Session, kind string) (*Context, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return nil, err
	}
	role := s.EffectiveRole(se)
	ctx := &Context{Kind: kind, Language: strings.TrimSpace(s.Config.Language), Session: se, Role: role,
		State: rt.State, Scope: scopeRules(se, role), Compactions: rt.Compactions}
	if ctx.State == "" {
		ctx.State = repo.StateBeginning
	}
	ctx.Stalls = policy.Stalls(rt.StallFacts())
	if kind == ContextCompact {
		ctx.Actions = rt.LastActions(reminderActions)
	}
	project, err := s.ProjectAnchors()
	if err != nil {
		ctx.Warnings = append(ctx.Warnings, err.Error())
	}
	anchors := project
	if rt.BoundIssue != "" {
		is, err := s.ReadIssueFile(rt.BoundIssue)
		switch {
		case repo.CodeOf(err) == repo.CodeNotFound:
			ctx.Warnings = append(ctx.Warnings, fmt.Sprintf("this session is bound to %s, which no longer exists: td session unbind, and ask for another issue", rt.BoundIssue))
		case err != nil:
			ctx.Warnings = append(ctx.Warnings, fmt.Sprintf("the bound issue cannot be read: %v", err))
		default:
			ctx.Issue = is
			cl := is.Checklist()
			ctx.Items, ctx.Rendered = cl.Items(), cl.Render()
			anchors = append(anchors, is.Anchors()...)
		}
	}
	ctx.Anchors, ctx.AnchorsLeft = pickAnchors(anchors, kind == ContextCompact)
	if ctx.Issue != nil {
		var warnings []string
		ctx.Handoff, ctx.Rejection, warnings = issueNotes(s, ctx.Issue)
		ctx.Warnings = append(ctx.Warnings, warnings...)
		ctx.Warnings = append(ctx.Warnings, issueWarnings(se, ctx.Issue, ctx.Items)...)
		ctx.Warnings = append(ctx.Warnings, claimWarnings(s, se, ctx.Issue)...)
		for i := range ctx.Items {
			if ctx.Items[i].Status == domain.TodoInProgress {
				ctx.Active = &ctx.Items[i]
				break
			}
		}
	}
	if ctx.Issue != nil && !se.IsSubagent() {
		waiting, err := todos.PendingProposals(s, ctx.Issue.ID)
		if err != nil {
			ctx.Warnings = append(ctx.Warnings, err.Error())
		}
		ctx.Proposals = len(waiting)
	}
	ctx.Next = nextSteps(se, role, ctx)
	return ctx, nil
}

// scopeRules says in words what the session may change (spec section 8).
func scopeRules(se *repo.Session, role domain.Role) []string {
	if se.IsSubagent() {
		return []string{"You are a subagent: you may not change issues or todos; propose steps with td todo propose --items ... and your root agent accepts them."}
	}
	if role == domain.RoleOperator {
		return []string{"You are an operator: you may change anything, and your approval is the sign-off."}
	}
	scope := "Scope project: change user code and issue files; td's governance files (config, ledgers, sessions, anchors, hooks, .gitattributes) only through td commands."
	if se.Category == domain.CategoryMeta {
		scope = "Scope meta: change td's governance files (config, ledgers, sessions, anchors, hooks, .gitattributes) and issue files; never user code."
	}
	if role == domain.RoleMember {
		return []string{"You are a member, a person not listed in operators: you create, implement and approve under the review table; an operator signs off acceptance criteria.", scope}
	}
	return []string{scope}
}

// pickAnchors keeps the critical anchors, then the high ones (unless
// criticalOnly), while they fit the budget; the count left out is returned
// so the block can say so.
func pickAnchors(all []repo.Anchor, criticalOnly bool) ([]repo.Anchor, int) {
	var out []repo.Anchor
	left, used := 0, 0
	for _, prio := range []domain.AnchorPriority{domain.AnchorCritical, domain.AnchorHigh} {
		if criticalOnly && prio != domain.AnchorCritical {
			break
		}
		for _, a := range all {
			if a.Priority != prio {
				continue
			}
			if used+len(a.Text) > anchorBudget && len(out) > 0 {
				left++
				continue
			}
			used += len(a.Text)
			out = append(out, a)
		}
	}
	return out, left
}

// claimWarnings says when another session holds the bound issue's claim,
// in any work tree or clone: td start would be refused, and two sessions
// would do the same work. It reads the one issue's claim reference, not
// the whole claims namespace (a file per claim): a harness hook builds
// this context at every start.
func claimWarnings(s *repo.Store, se *repo.Session, is *repo.Issue) []string {
	cs, err := claims.LoadIssues(s, is.ID)
	if err != nil || cs.Len() == 0 {
		return nil
	}
	c := cs.Shown(is.ID, is.Status)
	if c == nil || c.Session == se.ID {
		return nil
	}
	if c.Expired(s.Now()) {
		return []string{fmt.Sprintf("%s was claimed by %s (session %s) %s, whose lease ended at %s: td reclaim %s takes it over", is.ID, c.Actor.Name(), c.Session, cs.Where(c), c.Expires.UTC().Format(time.RFC3339), is.ID)}
	}
	return []string{fmt.Sprintf("%s is claimed by %s: agree who works on it before you start", is.ID, cs.Holder(c))}
}

// issueWarnings are the stale states of a binding an agent must notice
// before it works on.
func issueWarnings(se *repo.Session, is *repo.Issue, items []markdown.Item) []string {
	var out []string
	switch is.Status {
	case domain.StatusClosed:
		out = append(out, fmt.Sprintf("%s is closed (%s): its work is finished", is.ID, resolutionWords(is.Resolution)))
	case domain.StatusInReview:
		out = append(out, fmt.Sprintf("%s is in review: wait for the approval or the rejection before changing it", is.ID))
	case domain.StatusBlocked:
		out = append(out, fmt.Sprintf("%s is blocked: td unblock %s when the blocker is gone", is.ID, is.ID))
	}
	if is.Assignee != "" && is.Assignee != "session:"+se.ID {
		out = append(out, fmt.Sprintf("%s is now assigned to %s, not to this session: check with the operator before working on it", is.ID, is.Assignee))
	}
	n := 0
	for _, it := range items {
		if it.Status == domain.TodoInProgress {
			n++
		}
	}
	if n > 1 {
		out = append(out, fmt.Sprintf("%d todos are in progress (hand edits?): td fmt %s keeps the first", n, is.ID))
	}
	return out
}

func resolutionWords(s domain.Resolution) string {
	if s == "" {
		return "no resolution"
	}
	return string(s)
}

// StepKind names a next step a session's context suggests. The words a
// person or agent reads for it (the td command to run) are the command
// line's to write; a step carries only what they need.
type StepKind string

// The next steps, in the order nextSteps considers them.
const (
	// StepSubagentTask: a subagent without an issue does its root agent's
	// task and proposes todos.
	StepSubagentTask StepKind = "subagent_task"
	// StepBindOrSend: an operator without an issue binds one or sends an
	// agent.
	StepBindOrSend StepKind = "bind_or_send"
	// StepAskForIssue: an agent without an issue asks for one or files
	// its work as one.
	StepAskForIssue StepKind = "ask_for_issue"
	// StepNothingLeft: the bound Issue is closed.
	StepNothingLeft StepKind = "nothing_left"
	// StepAwaitReview: the bound Issue waits for review.
	StepAwaitReview StepKind = "await_review"
	// StepDecideProposals: Count proposals from subagents wait.
	StepDecideProposals StepKind = "decide_proposals"
	// StepStart: the bound Issue is open; start it.
	StepStart StepKind = "start"
	// StepContinue: the Todo in progress goes on.
	StepContinue StepKind = "continue"
	// StepPlan: the issue has no steps yet.
	StepPlan StepKind = "plan"
	// StepRequestReview: every criterion of Issue is done.
	StepRequestReview StepKind = "request_review"
	// StepClaimCriteria: the steps are done, criteria are open.
	StepClaimCriteria StepKind = "claim_criteria"
	// StepUnblock: every open todo is blocked.
	StepUnblock StepKind = "unblock"
	// StepAskForCriteria: the issue has steps and no acceptance criteria.
	StepAskForCriteria StepKind = "ask_for_criteria"
)

// Step is one next step: its kind and what it is about.
type Step struct {
	Kind StepKind
	// Issue is the issue the step is about, where it names one.
	Issue string
	// Todo is the text of the todo the step is about (StepContinue).
	Todo string
	// Count is how many (StepDecideProposals).
	Count int
}

// nextSteps is the first action to take, and what follows it.
func nextSteps(se *repo.Session, role domain.Role, ctx *Context) []Step {
	is := ctx.Issue
	if is == nil {
		switch {
		case se.IsSubagent():
			return []Step{{Kind: StepSubagentTask}}
		case role.Person():
			return []Step{{Kind: StepBindOrSend}}
		}
		return []Step{{Kind: StepAskForIssue}}
	}
	switch is.Status {
	case domain.StatusClosed:
		return []Step{{Kind: StepNothingLeft, Issue: is.ID}}
	case domain.StatusInReview:
		return []Step{{Kind: StepAwaitReview, Issue: is.ID}}
	}
	var next []Step
	if ctx.Proposals > 0 {
		next = append(next, Step{Kind: StepDecideProposals, Issue: is.ID, Count: ctx.Proposals})
	}
	if is.Status == domain.StatusOpen && !se.IsSubagent() {
		next = append(next, Step{Kind: StepStart, Issue: is.ID})
	}
	steps, openSteps, criteria, openCriteria, blocked := 0, 0, 0, 0, 0
	for _, it := range ctx.Items {
		open := it.Status == domain.TodoPending || it.Status == domain.TodoInProgress
		if it.Status == domain.TodoBlocked {
			blocked++
		}
		if it.Kind == domain.KindCriterion {
			criteria++
			if open || it.Status == domain.TodoBlocked {
				openCriteria++
			}
			continue
		}
		steps++
		if open {
			openSteps++
		}
	}
	switch {
	case ctx.Active != nil:
		next = append(next, Step{Kind: StepContinue, Issue: is.ID, Todo: ctx.Active.Text})
	case steps == 0:
		next = append(next, Step{Kind: StepPlan, Issue: is.ID})
	case openSteps == 0 && criteria > 0 && openCriteria == 0:
		next = append(next, Step{Kind: StepRequestReview, Issue: is.ID})
	case openSteps == 0 && openCriteria > 0:
		next = append(next, Step{Kind: StepClaimCriteria, Issue: is.ID})
	case blocked > 0:
		next = append(next, Step{Kind: StepUnblock, Issue: is.ID})
	}
	if criteria == 0 && steps > 0 {
		next = append(next, Step{Kind: StepAskForCriteria, Issue: is.ID})
	}
	return next
}
