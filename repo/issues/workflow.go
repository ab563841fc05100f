package issues

import (
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// TransitionOptions carries what a workflow command was given.
type TransitionOptions struct {
	// Reason explains the step; reject needs one, approve needs one for
	// the creator exception.
	Reason string
	// Force submits for review while acceptance criteria are open.
	Force bool
	// SelfCloseException closes an issue the policy would not let this
	// session close, with the reason audited.
	SelfCloseException string
	// Resolution is done (default) or wontfix for close.
	Resolution string
	// OverrideOpenCriteria lets an operator close an issue as done while
	// acceptance criteria are open, for this reason (audited).
	OverrideOpenCriteria string
}

// checkText refuses a reason holding a control character.
func (o TransitionOptions) checkText() error {
	if err := policy.CheckText("reason", o.Reason); err != nil {
		return err
	}
	return policy.CheckText("self-close exception", o.SelfCloseException)
}

// TransitionResult says what a workflow command did.
type TransitionResult struct {
	Issue *repo.Issue
	From  domain.Status
	// Unchanged is true when the issue already was where the command
	// would put it.
	Unchanged bool
	// OpenCriteria lists the criteria still open when the issue was
	// submitted with --force.
	OpenCriteria []string
	// Reason is the reason recorded in the transition's ledger entry.
	Reason string
	// Decision is the policy's answer for approve and close.
	Decision *policy.Decision
	// ClosedAgainstCriteria is true when an approval closed an issue whose
	// criteria were all done.
	ClosedAgainstCriteria bool
	// Security lists the security events written.
	Security []audit.SecurityEvent
	// Bound is true when td start bound the session, which had no issue,
	// to the issue it started: its todos are the session's checklist.
	Bound bool
	// StaleClaim is a claim td start replaced because the issue's ledger
	// had ended the work it was taken for (StaleEnd); nil for none.
	StaleClaim *domain.Claim
	StaleEnd   policy.WorkEnd
	// ReleasedClaim is the stray claim td unstart released on an issue
	// that was not in progress (Unchanged is then true); nil for none.
	ReleasedClaim *domain.Claim

	// stray is set by unstart's step when the issue is not in progress:
	// the refusal stands unless a stray claim is released instead.
	stray bool

	// implementer is the issue's implementer before the transition, whose
	// claim a transition that ends the work releases.
	implementer string

	// after holds ledger entries that follow the transition's own entry
	// (security entries, closed against criteria), written in the same
	// locked update.
	after []audit.Entry
}

// commandOf names the td command behind a transition's ledger action, for
// messages that tell someone else what to run.
func commandOf(action string) string {
	switch action {
	case audit.ActionStarted:
		return "start"
	case audit.ActionUnstarted:
		return "unstart"
	case audit.ActionSubmitted:
		return "review"
	case audit.ActionApproved:
		return "approve"
	case audit.ActionRejected:
		return "reject"
	case audit.ActionClosed:
		return "close"
	case audit.ActionReopened:
		return "reopen"
	case audit.ActionBlocked:
		return "block"
	case audit.ActionUnblocked:
		return "unblock"
	}
	return action
}

// transition reads the issue under the lock, lets step check and change
// it, then writes it with one ledger entry for action.
func transition(s *repo.Store, se *repo.Session, ref, action string, step func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) (details map[string]any, reason string, err error)) (*TransitionResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, repo.Errorf(repo.CodeRefused, "subagent sessions cannot change todos or issues; ask the root agent %s to run td %s %s", se.Agent.Root(), commandOf(action), ref)
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	res := &TransitionResult{}
	err = s.Update(func(tx *repo.Tx) error {
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		res.Issue, res.From, res.implementer = is, is.Status, is.Implementer
		details, reason, err := step(tx, is, res)
		if err != nil || res.Unchanged {
			return err
		}
		res.Reason = reason
		if details == nil {
			details = map[string]any{}
		}
		if is.Status != res.From {
			details["from"], details["to"] = string(res.From), string(is.Status)
		}
		if err := s.WriteIssue(tx, se, is, action, details, reason); err != nil {
			return err
		}
		for _, e := range res.after {
			e.TS, e.Session = s.Now(), se.ID
			if err := s.AppendLedger(tx, is.ID, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	return res, nil
}

// wrongStatus refuses a transition from the issue's current status and
// says what would make it pass.
func wrongStatus(is *repo.Issue, verb string) error {
	hint := ""
	switch is.Status {
	case domain.StatusOpen:
		hint = "td start " + is.ID + " starts the work"
	case domain.StatusInProgress:
		hint = "td review " + is.ID + " asks for sign-off"
	case domain.StatusBlocked:
		hint = "td unblock " + is.ID + " reopens it"
	case domain.StatusInReview:
		hint = "td approve or td reject --reason decides the review"
	case domain.StatusClosed:
		hint = "td reopen " + is.ID + " reopens it"
	}
	return repo.Errorf(repo.CodeRefused, "cannot %s %s: it is %s; %s", verb, is.ID, is.Status, hint)
}

// Start marks the issue in progress and makes the session its implementer.
//
// A session bound to no issue is bound to the one it starts, so that the
// next td todo works on it; a session bound to another issue stays so.
func Start(s *repo.Store, se *repo.Session, ref string) (*TransitionResult, error) {
	res, err := start(s, se, ref)
	if err != nil {
		return res, err
	}
	// The session's runtime is local state, outside the transaction: it is
	// read and written under its own lock, after the issue is written, so
	// a crash between the two leaves an issue started and a session not
	// yet bound, which the next td start binds.
	bound := false
	err = s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		if rt.BoundIssue == "" {
			rt.BoundIssue, rt.BoundBy, bound = res.Issue.ID, repo.BoundByStart, true
		}
		return nil
	})
	if err != nil {
		s.Warnf("%s is started; the session was not bound to it: %v", res.Issue.ID, err)
		return res, nil
	}
	res.Bound = bound
	return res, nil
}

// start is Start without the binding. The issue's claim is taken (or
// renewed) once the issue file says it may start, under the store lock,
// and put back if the start then fails: the file's refusals come first,
// and the claim refuses what the file of this work tree cannot know
// (another work tree or clone at work on it).
func start(s *repo.Store, se *repo.Session, ref string) (*TransitionResult, error) {
	var taken *claims.TakeResult
	res, err := transition(s, se, ref, audit.ActionStarted, func(_ *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		if is.Status == domain.StatusInProgress && is.Implementer == se.ID {
			res.Unchanged = true
			_, err := claims.Take(s, se, is.ID, "start", claims.HandOver{})
			return nil, "", err
		}
		if is.Status == domain.StatusInProgress {
			return nil, "", repo.Errorf(repo.CodeRefused, "cannot start %s: %s is already working on it; it hands the issue back with td unstart %s", is.ID, is.Implementer, is.ID)
		}
		if is.Status != domain.StatusOpen {
			return nil, "", wrongStatus(is, "start")
		}
		var err error
		if taken, err = claims.Take(s, se, is.ID, "start", claims.HandOver{}); err != nil {
			return nil, "", err
		}
		if taken != nil && taken.Stale != nil {
			res.StaleClaim, res.StaleEnd = taken.Stale, taken.End
		}
		if err := is.SetStatus(domain.StatusInProgress); err != nil {
			return nil, "", err
		}
		d := map[string]any{}
		if is.Implementer != se.ID {
			d["implementer"] = map[string]any{"from": is.Implementer, "to": se.ID}
		}
		if taken != nil && taken.Unpublished {
			// The start could not compare its claim with the claims
			// remote's: td check's claims rule reads this (td help claims).
			d["claim"] = claims.Unpublished
		}
		return d, "", repo.SetWord(is, "implementer", &is.Implementer, se.ID)
	})
	if err != nil {
		claims.Undo(s, taken)
	}
	return res, err
}

// releaseClaim ends the issue's claim after a transition that ends the
// work on it (unstart, close, approve): the acting session's or the
// implementer's claim, per policy.ReleasedBy. A claim that cannot be
// released is a warning: the transition stands, and the lease runs out.
func releaseClaim(s *repo.Store, se *repo.Session, res *TransitionResult, err error) (*TransitionResult, error) {
	if err != nil || res == nil || res.Unchanged || res.Issue == nil {
		return res, err
	}
	if _, rerr := claims.Release(s, res.Issue.ID, se.ID, res.implementer); rerr != nil {
		s.Warnf("%s's claim was not released: %v", res.Issue.ID, rerr)
	}
	return res, nil
}

// Unstart hands an issue in progress back: open, with no implementer, and
// releases its claim. On an issue that is not in progress it releases a
// stray claim instead, for the claim's holder or an operator: a claim
// left behind by work that ended elsewhere, or that never started here;
// the issue is left as it is.
func Unstart(s *repo.Store, se *repo.Session, ref string) (*TransitionResult, error) {
	res, err := unstart(s, se, ref)
	if err != nil && res != nil && res.stray {
		held, rerr := claims.ReleaseStray(s, se, res.Issue.ID, s.EffectiveRole(se) == domain.RoleOperator, res.Issue.Status)
		if rerr != nil {
			return res, rerr
		}
		if held == nil {
			return res, err // no claim either: the refusal stands
		}
		res.Unchanged, res.ReleasedClaim = true, held
		return res, nil
	}
	return releaseClaim(s, se, res, err)
}

func unstart(s *repo.Store, se *repo.Session, ref string) (*TransitionResult, error) {
	return transition(s, se, ref, audit.ActionUnstarted, func(_ *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusInProgress {
			res.stray = true
			return nil, "", wrongStatus(is, "unstart")
		}
		if err := policy.MayUnstart(domain.Role(s.EffectiveRole(se)), se.ID, is.Implementer, is.ID); err != nil {
			return nil, "", err
		}
		if err := is.SetStatus(domain.StatusOpen); err != nil {
			return nil, "", err
		}
		d := map[string]any{"implementer": map[string]any{"from": is.Implementer, "to": ""}}
		return d, "", repo.SetWord(is, "implementer", &is.Implementer, "")
	})
}

// Review submits the issue for sign-off. While acceptance criteria are
// open it refuses unless forced.
func Review(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	return transition(s, se, ref, audit.ActionSubmitted, func(_ *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusInProgress {
			return nil, "", wrongStatus(is, "submit")
		}
		open := markdown.OpenCriteria(is.Todos())
		if len(open) > 0 && !o.Force {
			return nil, "", repo.Errorf(repo.CodeRefused, "cannot submit %s: %d acceptance %s still open (%s); finish %s, or pass --force to ask for sign-off anyway",
				is.ID, len(open), domain.Plural(len(open), "criterion is", "criteria are"), domain.QuoteList(open), domain.Plural(len(open), "it", "them"))
		}
		if err := claims.CheckWork(s, se, is.ID, policy.WorkSubmit, s.EffectiveRole(se) == domain.RoleOperator, "submit "+is.ID); err != nil {
			return nil, "", err
		}
		res.OpenCriteria = open
		var d map[string]any
		if len(open) > 0 {
			d = map[string]any{"open_criteria": len(open), "forced": true}
		}
		return d, o.Reason, is.SetStatus(domain.StatusInReview)
	})
}

// Reject sends an issue in review back to in progress, with a reason.
func Reject(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(o.Reason)
	if reason == "" {
		return nil, repo.Errorf(repo.CodeInvalid, "a rejection needs a reason: td reject %s --reason \"what is missing\"", ref)
	}
	return transition(s, se, ref, audit.ActionRejected, func(_ *repo.Tx, is *repo.Issue, _ *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusInReview {
			return nil, "", wrongStatus(is, "reject")
		}
		return nil, reason, is.SetStatus(domain.StatusInProgress)
	})
}

// Reopen moves a closed issue back to open and clears its resolution.
func Reopen(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	return transition(s, se, ref, audit.ActionReopened, func(_ *repo.Tx, is *repo.Issue, _ *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusClosed {
			return nil, "", wrongStatus(is, "reopen")
		}
		if err := is.SetStatus(domain.StatusOpen); err != nil {
			return nil, "", err
		}
		return nil, strings.TrimSpace(o.Reason), repo.SetWord(is, "resolution", &is.Resolution, "")
	})
}

// Block marks an issue blocked from any status but closed.
func Block(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	return transition(s, se, ref, audit.ActionBlocked, func(_ *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		switch is.Status {
		case domain.StatusBlocked:
			res.Unchanged = true
			return nil, "", nil
		case domain.StatusClosed:
			return nil, "", wrongStatus(is, "block")
		}
		return nil, strings.TrimSpace(o.Reason), is.SetStatus(domain.StatusBlocked)
	})
}

// Unblock moves a blocked issue back to where it was when it was blocked:
// the status its last "blocked" ledger entry came from. An issue blocked
// by a hand edit, with no such entry, goes back to in_progress when it has
// an implementer and to open otherwise.
func Unblock(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	return transition(s, se, ref, audit.ActionUnblocked, func(_ *repo.Tx, is *repo.Issue, _ *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusBlocked {
			return nil, "", wrongStatus(is, "unblock")
		}
		entries, _, err := s.Ledger(is.ID)
		if err != nil {
			return nil, "", err
		}
		return nil, strings.TrimSpace(o.Reason), is.SetStatus(unblockedStatus(entries, is.Implementer))
	})
}

// unblockedStatus is the status an unblocked issue returns to: the one
// its last blocked entry left, if that is a status work can resume in.
func unblockedStatus(entries []audit.Entry, implementer string) domain.Status {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Action != audit.ActionBlocked {
			continue
		}
		from, _, _ := entries[i].Transition()
		switch st := domain.Status(from); st {
		case domain.StatusOpen, domain.StatusInReview:
			return st
		case domain.StatusInProgress:
			if implementer != "" {
				return st
			}
			return domain.StatusOpen
		}
		break
	}
	if implementer != "" {
		return domain.StatusInProgress
	}
	return domain.StatusOpen
}
