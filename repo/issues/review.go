package issues

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// Verdicts is what every review decision of one command shares: the
// review policy in force and the config whose operators count, both as
// td check --base will read them. On a branch of its own, CI judges with
// the target's rules, the default branch's config as it is now: an
// operator added (or a flag changed) on the branch counts once it lands,
// and one removed (or a policy made stricter) on the default branch
// counts at once; on the default branch, or with none, with this work
// tree's.
type Verdicts struct {
	s *repo.Store
	// bound holds, per session of a reviewer's actor, the issues its
	// record says it was bound to; claims the claims, read once.
	bound  map[string]map[string]bool
	claims *claims.Set
	// author is the git identity commits are made under here, once read.
	author     string
	authorRead bool
	mu         sync.Mutex
	// Rules are the review policy's flags as CI reads them, the
	// environment making them only stricter.
	Rules policy.Rules
	cfg   *repo.Config
}

// NewVerdicts reads the review policy and the operators in force.
func NewVerdicts(s *repo.Store) (*Verdicts, error) {
	r := &Verdicts{s: s, cfg: s.Config}
	v, err := s.BranchView()
	if err != nil {
		return nil, err
	}
	if v.OnBranch() {
		if cfg := v.BaseConfig(); cfg != nil {
			r.cfg = cfg
		}
	}
	if r.Rules, err = reviewRules(s, r.cfg); err != nil {
		return nil, err
	}
	if r.cfg != s.Config {
		r.warnChanged()
	}
	return r, nil
}

// warnChanged says when this branch lists other operators, or sets the
// review policy otherwise, than the default branch: its decisions are
// judged by the default branch's until the change lands.
func (r *Verdicts) warnChanged() {
	s := r.s
	var changed []string
	for _, op := range s.Config.Operators {
		name, email := repo.SplitIdentity(op)
		if !r.cfg.IsOperator(name, email) {
			changed = append(changed, op)
		}
	}
	if len(changed) > 0 {
		s.Warnf("%s %s on this branch only: td judges reviews as CI will, by the operators the default branch lists, until the change lands there", domain.QuoteList(changed), domain.Plural(len(changed), "is an operator", "are operators"))
	}
	if v, _, err := policy.Resolve(policy.BalancedReviewPolicy, s.Env, s.Config.Features); err == nil && policy.ModeFor(v) != r.Rules.Mode {
		m := policy.ModeFor(v)
		s.Warnf("this branch sets the %s review policy: td judges reviews as CI will, by the %s policy the default branch sets, until the change lands there", m, r.Rules.Mode)
	}
	if v, _, err := policy.Resolve(policy.AgentApproval, s.Env, s.Config.Features); err == nil && v != r.Rules.AgentApproval {
		s.Warnf("this branch sets %s to %t: td judges reviews as CI will, with %t as the default branch sets it, until the change lands there", policy.AgentApproval, v, r.Rules.AgentApproval)
	}
}

// Role is se's role for the review rules: under the operators CI reads.
func (r *Verdicts) Role(se *repo.Session) domain.Role { return repo.RoleUnder(r.cfg, se) }

// reviewRules reads the review policy from cfg's flags; the environment
// may only make it stricter.
func reviewRules(s *repo.Store, cfg *repo.Config) (policy.Rules, error) {
	var v [2]bool
	for i, name := range []string{policy.BalancedReviewPolicy, policy.AgentApproval} {
		var err error
		if v[i], _, err = policy.Resolve(name, s.Env, cfg.Features); err != nil {
			return policy.Rules{}, repo.Errorf(repo.CodeInvalid, "%v", err)
		}
		if ign := policy.IgnoredEnv(name, s.Env); ign != "" {
			s.Warnf("%s ignored: the environment may make the review policy only stricter; td feature set %s true changes it (audited)", ign, name)
		}
	}
	return policy.RulesFor(v[0], v[1]), nil
}

// RulesOf reads the review policy a config's flags set, with no
// environment: td check --base judges with the base's config alone.
func RulesOf(cfg *repo.Config) (policy.Rules, error) {
	var v [2]bool
	for i, name := range []string{policy.BalancedReviewPolicy, policy.AgentApproval} {
		var err error
		if v[i], _, err = policy.Resolve(name, nil, cfg.Features); err != nil {
			return policy.Rules{}, repo.Errorf(repo.CodeInvalid, "%v", err)
		}
	}
	return policy.RulesFor(v[0], v[1]), nil
}

// ReviewInput is everything one review decision reads, however it was
// gathered: td approve, td close and td reviewable read the store as it
// is now; td check --base reads the committed history as it stood at each
// approval and close it re-decides. Both decide through DecideReview, so
// what td accepted locally is what CI accepts, given the same facts.
type ReviewInput struct {
	// Issue is the issue as it stood when the decision was made.
	Issue *repo.Issue
	// Session decides; Role is its role under the config in force.
	Session *repo.Session
	Role    domain.Role
	// New is true when Session is the one td starts with this command
	// (or would, for a command that only reads): refusals name the
	// person, never an ID that a refusal leaves unwritten.
	New bool
	// Criteria counts the issue's acceptance criteria not dropped, as
	// they stood at the decision.
	Criteria int
	// Resolution is what a close closes as ("" for an approval, which
	// closes as done).
	Resolution domain.Resolution
	// Ledger is what the issue's ledger said up to the decision; Git what
	// the commits before it said (nil when none touched the issue).
	Ledger repo.LedgerFacts
	Git    *repo.IssueGit
	// ActorSessions lists the sessions that act for the session's actor.
	ActorSessions []string
	// LateAfter and LateEarlier are what the late-operator rule found, for
	// an approval by a person (policy.Facts says what they mean).
	LateAfter, LateEarlier string
	// Workers are sessions of the reviewer's actor that this clone knows
	// did the work, beside what the ledger and commits say: bound to the
	// issue by the session's record (which the harness hooks keep), or
	// holding its claim. A ledger line deleted by hand erases none of it.
	Workers []string
	// CommitAs is the git identity the decision will be committed under
	// here, "" when unknown (td check judges the commit's author itself).
	CommitAs string
}

// Facts assembles the policy's facts from the input.
func (in ReviewInput) Facts() policy.Facts {
	f := ReviewFactsFrom(in.Issue, in.Session, in.Ledger, in.Git)
	f.ReviewerRole = in.Role
	f.ReviewerName = in.Session.Actor().ShortName()
	f.ReviewerNew = in.New || in.Session.ID == ""
	f.Criteria = in.Criteria
	WithActor(&f, in.Session, in.ActorSessions)
	f.LateAfter, f.LateEarlier = in.LateAfter, in.LateEarlier
	f.Workers = repo.AppendNew(f.Workers, in.Workers...)
	f.CommitAs = in.CommitAs
	if f.Reviewer == "" {
		f.Reviewer = NewSessionName
	}
	return f
}

// DecideReview is the one decision behind an approval (action
// audit.ActionApproved) and a close (audit.ActionClosed), with reason as
// given to --reason and selfClose to --self-close-exception.
func DecideReview(rules policy.Rules, action string, in ReviewInput, reason, selfClose string) policy.Decision {
	if action == audit.ActionApproved {
		return policy.Approval(rules, in.Facts(), reason)
	}
	asDone := in.Resolution == "" || in.Resolution == domain.ResolutionDone
	return policy.Close(rules, in.Facts(), asDone, reason, selfClose)
}

// reviewInput gathers the input of a decision from the store: the
// frontmatter, the issue's ledger, and the git commits that touched the
// issue's files. Frontmatter alone is never trusted; the policy
// reconciles the sources.
func reviewInput(s *repo.Store, is *repo.Issue, se *repo.Session) (ReviewInput, error) {
	in := ReviewInput{Issue: is, Session: se, Role: s.EffectiveRole(se), ActorSessions: s.SessionsOf(se.Actor()),
		New: s.Unsaved(se), Criteria: is.Tally().CriteriaTotal}
	lf, err := s.LedgerFactsOf(is.ID)
	if err != nil {
		return in, err
	}
	in.Ledger = lf
	// Committed history: the commit that added the file and the sessions
	// whose commits touched it, from one cached walk of the history.
	in.Git, err = s.IssueGitFacts(is.ID)
	return in, err
}

// ReviewFacts gathers what the policy needs to decide whether the session
// se may approve or close the issue, from the store (reviewInput).
func ReviewFacts(s *repo.Store, is *repo.Issue, se *repo.Session) (policy.Facts, error) {
	in, err := reviewInput(s, is, se)
	return in.Facts(), err
}

// Ask is what a reviewer asks td to decide: an approval, or a close
// (td close) with its reasons.
type Ask struct {
	Close     bool   // td close rather than td approve
	Reason    string // --reason
	SelfClose string // --self-close-exception, for a close
	// Resolution is what a close closes as: done ("" too), wontfix or
	// duplicate. Only a close as done is a sign-off.
	Resolution domain.Resolution
}

// Judge is the one decision on whether se may approve or close is: the
// review policy in force, given the facts td check --base will read from
// the commits (the frontmatter, the ledger, the commits that touched the
// issue, the sessions of the reviewer's actor, the operators where the
// branch started, and for an approval the order in which the reviewer's
// session and an agent's start of the work reach the branch). td approve,
// td close, td reviewable and td status ask it; td check re-decides each
// recorded decision with the same policy on the same facts. A reviewer
// with no session yet (a reading command's stand-in, whose session td
// starts at the first change) is judged as that new session.
func (r *Verdicts) Judge(is *repo.Issue, se *repo.Session, a Ask) (policy.Decision, error) {
	in, err := reviewInput(r.s, is, se)
	if err != nil {
		return policy.Decision{}, err
	}
	in.Role = r.Role(se)
	if in.Workers, err = r.localWorkers(is.ID, se, in.ActorSessions); err != nil {
		return policy.Decision{}, err
	}
	in.CommitAs = r.commitAs()
	if a.Close {
		in.Resolution = a.Resolution
		return DecideReview(r.Rules, audit.ActionClosed, in, a.Reason, a.SelfClose), nil
	}
	if err := lateOperator(r.s, in.Role, is, se, &in); err != nil {
		return policy.Decision{}, err
	}
	return DecideReview(r.Rules, audit.ActionApproved, in, a.Reason, ""), nil
}

// commitAs is the git identity this clone commits under, "" outside git
// or without one.
func (r *Verdicts) commitAs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.authorRead {
		r.authorRead = true
		if g, err := r.s.GitRepo(); err == nil && g != nil {
			r.author, _ = r.s.Author()
		}
	}
	return r.author
}

// localWorkers lists the sessions of se's actor (se and sessions) that
// this clone's records say worked on issue id: bound to it now or when it
// last acted (its runtime, which td and the harness hooks keep outside the
// work tree), or holding its claim.
func (r *Verdicts) localWorkers(id string, se *repo.Session, sessions []string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bound == nil {
		r.bound = map[string]map[string]bool{}
	}
	var out []string
	for _, sid := range repo.AppendNew([]string{se.ID}, sessions...) {
		issues, ok := r.bound[sid]
		if !ok {
			issues = map[string]bool{}
			if rt, err := r.s.Runtime(sid); err == nil {
				issues[rt.BoundIssue] = true
				for _, a := range rt.Actions {
					issues[a.Issue] = true
				}
			}
			r.bound[sid] = issues
		}
		if issues[id] {
			out = append(out, sid)
		}
	}
	if r.claims == nil {
		cs, err := claims.Load(r.s)
		if err != nil {
			return nil, err
		}
		r.claims = cs
	}
	if c := r.claims.Raw(id); c != nil && c.Actor.Same(se.Actor()) {
		out = repo.AppendNew(out, c.Session)
	}
	return out, nil
}

// NewSessionName names, in refusals, the session td starts for a person
// at their first change, before it has an ID.
const NewSessionName = "the session td starts for you"

// WithActor tells the facts which sessions act for the reviewer se's
// actor (sessions may include se itself), so that the policy judges
// involvement per actor.
func WithActor(f *policy.Facts, se *repo.Session, sessions []string) {
	f.ReviewerSessions = nil
	for _, id := range sessions {
		if id != se.ID {
			f.ReviewerSessions = append(f.ReviewerSessions, id)
		}
	}
	f.ReviewerActor = ActorName(se.Actor())
	f.ReviewerAgent = string(se.Actor().Agent)
}

// ActorName names an actor where people read: "Bob <bob@example.com>", or
// "agent primary of Bob <bob@example.com>".
func ActorName(a domain.Actor) string { return a.Name() }

// reviewFacts assembles the policy's facts from the three sources, given
// rather than read, so that td approve and td check (which replays the
// ledger as it stood at each decision) judge with one definition.
func ReviewFactsFrom(is *repo.Issue, se *repo.Session, lf repo.LedgerFacts, ig *repo.IssueGit) policy.Facts {
	f := policy.Facts{IssueID: is.ID, Reviewer: se.ID, ReviewerAuthor: se.Author, Minor: is.Minor, Implementer: is.Implementer}
	if is.CreatedBy != "" {
		f.CreatorClaims = append(f.CreatorClaims, policy.Claim{Source: policy.SourceFrontmatter, Session: is.CreatedBy})
	}
	if lf.HasCreator {
		f.CreatorClaims = append(f.CreatorClaims, policy.Claim{Source: policy.SourceLedger, Session: lf.Creator})
	}
	// Fresh slices: lf's are shared with the cache and other goroutines.
	f.ImplementationHistory = repo.AppendNew(nil, lf.Implementers...)
	f.Workers = repo.AppendNew(nil, lf.Workers...)
	f.Involved = repo.AppendNew(nil, lf.Involved...)
	f.MinorMarkedBy = lf.MinorMarkedBy
	f.LedgerImplementer = lf.CurrentImplementer
	// The minor bypass needs the ledger to agree: td create --minor and
	// td edit --minor record it, a flag typed into the file does not.
	f.Minor = f.Minor && lf.Minor
	if ig != nil {
		f.Involved = repo.AppendNew(f.Involved, ig.Sessions...)
		f.ImplementationHistory = repo.AppendNew(f.ImplementationHistory, ig.Implementers...)
		f.Workers = repo.AppendNew(f.Workers, ig.Workers...)
		if ig.AddedBy != "" {
			f.CreatorClaims = append(f.CreatorClaims, policy.Claim{Source: policy.SourceCommit, Session: ig.AddedSession, Author: ig.AddedBy})
		}
	}
	return f
}

// Approve closes an issue in review when the review policy lets the
// session approve it. The creator exception is audited twice: a security
// entry in the ledger and a line in security_events.jsonl.
func Approve(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(o.Reason)
	rv, err := NewVerdicts(s)
	if err != nil {
		return nil, err
	}
	res, err := approve(s, se, ref, rv, reason, o)
	return releaseClaim(s, se, res, err)
}

func approve(s *repo.Store, se *repo.Session, ref string, rv *Verdicts, reason string, o TransitionOptions) (*TransitionResult, error) {
	mode := rv.Rules.Mode
	return transition(s, se, ref, audit.ActionApproved, func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		if is.Status != domain.StatusInReview {
			return nil, "", wrongStatus(is, "approve")
		}
		override, err := rv.criteriaGate(se, is, "approve", o.OverrideOpenCriteria)
		if err != nil {
			return nil, "", err
		}
		d, err := rv.Judge(is, se, Ask{Reason: reason})
		if err != nil {
			return nil, "", err
		}
		if d.Allowed {
			// A decision the policy allows rests on the ledger being whole.
			if err := s.CheckLedgerKept(is.ID); err != nil {
				return nil, "", err
			}
		}
		details, err := closeUnderPolicy(s, tx, se, is, res, d, mode, "done")
		if err != nil {
			return nil, "", err
		}
		if d.CreatorException {
			if err := auditException(s, tx, se, is, res, mode, audit.KindCreatorApproval, reason); err != nil {
				return nil, "", err
			}
			details["creator_exception"] = true
		}
		if err := auditOverride(s, tx, se, is, res, mode, details, override, o.OverrideOpenCriteria); err != nil {
			return nil, "", err
		}
		items := is.Todos()
		if sum := markdown.Summarize(items); sum.CriteriaMet() {
			res.ClosedAgainstCriteria = true
			res.after = append(res.after, audit.Entry{Action: audit.ActionClosedAgainst, Details: map[string]any{"criteria": sum.CriteriaTotal}})
		}
		return details, reason, nil
	})
}

// ApprovalRefusal is what td approve ref --reason reason would refuse
// with, acting as se, found without writing anything: the issue's status,
// the open criteria and the review decision, in td approve's order and by
// the same decision. "" when td approve would go ahead; an issue td
// cannot find or read is left to td approve to report (""). The harness
// guards ask it before an agent's td approve runs, so the agent hears the
// policy's answer, never a guard's blanket refusal.
func ApprovalRefusal(s *repo.Store, se *repo.Session, ref, reason string) (string, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return fmt.Sprintf("subagent sessions cannot change todos or issues; ask the root agent %s to run td approve %s", se.Agent.Root(), ref), nil
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return "", nil
	}
	is, err := s.ReadIssueFile(id)
	if err != nil {
		return "", nil
	}
	if is.Status != domain.StatusInReview {
		return wrongStatus(is, "approve").Error(), nil
	}
	rv, err := NewVerdicts(s)
	if err != nil {
		return "", err
	}
	if _, err := rv.criteriaGate(se, is, "approve", ""); err != nil {
		return err.Error(), nil
	}
	d, err := rv.Judge(is, se, Ask{Reason: strings.TrimSpace(reason)})
	if err != nil || d.Allowed {
		return "", err
	}
	return d.Refusal, nil
}

// Close closes an issue outside review (an admin close) under the same
// policy as approval. A session the policy refuses may still close with a
// self-close exception, which is audited like the creator exception.
func Close(s *repo.Store, se *repo.Session, ref string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	resolution, err := repo.OneOf(o.Resolution, domain.ResolutionDone, []domain.Resolution{domain.ResolutionDone, domain.ResolutionWontfix}, true)
	if err != nil {
		return nil, repo.Errorf(repo.CodeInvalid, "resolution %v (a duplicate is closed with --duplicate-of)", err)
	}
	return closeAs(s, se, ref, o, resolution, nil)
}

// closeAs is Close with the resolution decided. extra, when given, changes
// the issue in the same locked update before the policy decides (the link
// of a duplicate); an error from it refuses the close.
func closeAs(s *repo.Store, se *repo.Session, ref string, o TransitionOptions, resolution domain.Resolution, extra func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) error) (*TransitionResult, error) {
	res, err := closeUnreleased(s, se, ref, o, resolution, extra)
	return releaseClaim(s, se, res, err)
}

// closeUnreleased is closeAs before the claim is released.
func closeUnreleased(s *repo.Store, se *repo.Session, ref string, o TransitionOptions, resolution domain.Resolution, extra func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) error) (*TransitionResult, error) {
	reason := strings.TrimSpace(o.Reason)
	selfClose := strings.TrimSpace(o.SelfCloseException)
	rv, err := NewVerdicts(s)
	if err != nil {
		return nil, err
	}
	mode := rv.Rules.Mode
	return transition(s, se, ref, audit.ActionClosed, func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) (map[string]any, string, error) {
		if is.Status == domain.StatusClosed {
			return nil, "", wrongStatus(is, "close")
		}
		if extra != nil {
			if err := extra(tx, is, res); err != nil {
				return nil, "", err
			}
		}
		var override []string
		if resolution == domain.ResolutionDone {
			if override, err = rv.criteriaGate(se, is, "close", o.OverrideOpenCriteria); err != nil {
				return nil, "", err
			}
		}
		d, err := rv.Judge(is, se, Ask{Close: true, Reason: reason, SelfClose: selfClose, Resolution: resolution})
		if err != nil {
			return nil, "", err
		}
		if d.Allowed {
			// A decision the policy allows rests on the ledger being whole.
			if err := s.CheckLedgerKept(is.ID); err != nil {
				return nil, "", err
			}
		}
		details, err := closeUnderPolicy(s, tx, se, is, res, d, mode, resolution)
		if err != nil {
			return nil, "", err
		}
		details["resolution"] = string(resolution)
		kind, why := "", ""
		switch {
		case d.SelfCloseException:
			kind, why = audit.KindSelfClose, selfClose
		case d.CreatorException:
			kind, why = audit.KindCreatorApproval, reason
		case resolution == domain.ResolutionDone && se.IsAgent():
			// An agent's close as done is a sign-off nobody asked
			// for: always on the record.
			kind, why = audit.KindAgentClose, AgentCloseReason(reason)
		}
		if kind != "" {
			if err := auditException(s, tx, se, is, res, mode, kind, why); err != nil {
				return nil, "", err
			}
			details[kind] = true
		}
		if err := auditOverride(s, tx, se, is, res, mode, details, override, o.OverrideOpenCriteria); err != nil {
			return nil, "", err
		}
		return details, reason, nil
	})
}

// AgentCloseReason is the reason an agent's close as done is audited
// with: its --reason, else a sentence saying it gave none.
func AgentCloseReason(reason string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return "closed as done by an agent, no reason given"
}

// closeUnderPolicy applies the policy's decision to an approval or a
// close: it records a provenance conflict, refuses when the policy says
// no, and otherwise closes the issue with the resolution. It returns the
// ledger details both share.
func closeUnderPolicy(s *repo.Store, tx *repo.Tx, se *repo.Session, is *repo.Issue, res *TransitionResult, d policy.Decision, mode policy.Mode, resolution domain.Resolution) (map[string]any, error) {
	res.Decision = &d
	if err := recordConflict(s, tx, se, is, d, res); err != nil {
		return nil, err
	}
	if !d.Allowed {
		return nil, repo.Errorf(repo.CodeRefused, "%s", d.Refusal)
	}
	if err := is.SetStatus(domain.StatusClosed); err != nil {
		return nil, err
	}
	if err := repo.SetWord(is, "resolution", &is.Resolution, resolution); err != nil {
		return nil, err
	}
	details := map[string]any{"policy": string(mode)}
	if is.Minor {
		details["minor"] = true
	}
	return details, nil
}

// auditException records a policy exception twice: a line in
// security_events.jsonl now, and a security entry in the issue's ledger
// right after the transition's own entry.
func auditException(s *repo.Store, tx *repo.Tx, se *repo.Session, is *repo.Issue, res *TransitionResult, mode policy.Mode, kind, why string) error {
	ev, err := s.AppendSecurityEvent(tx, se, is.ID, kind, why)
	if err != nil {
		return err
	}
	res.Security = append(res.Security, ev)
	res.after = append(res.after, audit.Entry{Action: kind, Reason: why, Type: audit.TypeSecurity,
		Details: map[string]any{"policy": string(mode), "implementer": is.Implementer}})
	return nil
}

// criteriaGate refuses to close is as done (verb is approve or close)
// over open acceptance criteria, unless an operator overrides it with a
// reason; it returns the criteria an allowed override closes over.
func (r *Verdicts) criteriaGate(se *repo.Session, is *repo.Issue, verb, override string) ([]string, error) {
	open := markdown.OpenCriteria(is.Todos())
	d := policy.CloseWithOpenCriteria(r.Role(se), is.ID, verb, open, strings.TrimSpace(override))
	if !d.Allowed {
		return nil, repo.Errorf(repo.CodeRefused, "%s", d.Refusal)
	}
	if d.Override {
		return open, nil
	}
	return nil, nil
}

// openCriteria is the criteria gate's refusal of an approval by se of an
// issue whose acceptance criteria are open, as td approve without
// --override-open-criteria gives it to anyone but an operator; "" for an
// operator, who may override them.
func (r *Verdicts) openCriteria(listed *repo.Issue, se *repo.Session) (string, error) {
	if r.Role(se) == domain.RoleOperator {
		return "", nil
	}
	is, err := r.s.ReadIssueFile(listed.ID)
	if err != nil {
		return "", err
	}
	d := policy.CloseWithOpenCriteria(r.Role(se), is.ID, "approve", markdown.OpenCriteria(is.Todos()), "")
	return d.Refusal, nil
}

// auditOverride records an operator's close over the open criteria named,
// (reason is the operator's), if any, as a security event and in the close's ledger details.
func auditOverride(s *repo.Store, tx *repo.Tx, se *repo.Session, is *repo.Issue, res *TransitionResult, mode policy.Mode, details map[string]any, open []string, reason string) error {
	if len(open) == 0 {
		return nil
	}
	why := fmt.Sprintf("%s (open: %s)", strings.TrimSpace(reason), domain.QuoteList(open))
	if err := auditException(s, tx, se, is, res, mode, audit.KindOpenCriteriaOverride, why); err != nil {
		return err
	}
	details["open_criteria"] = len(open)
	details[audit.KindOpenCriteriaOverride] = true
	return nil
}

// recordConflict writes a provenance_conflict security event the first
// time the policy finds that history and frontmatter disagree about who
// created an issue.
func recordConflict(s *repo.Store, tx *repo.Tx, se *repo.Session, is *repo.Issue, d policy.Decision, res *TransitionResult) error {
	if d.Conflict == "" {
		return nil
	}
	events, err := s.SecurityEvents()
	if err != nil {
		return err
	}
	for _, e := range events {
		if e.IssueID == is.ID && e.Kind == audit.KindProvenanceConflict && e.Reason == d.Conflict {
			return nil
		}
	}
	ev, err := s.AppendSecurityEvent(tx, se, is.ID, audit.KindProvenanceConflict, d.Conflict)
	if err != nil {
		return err
	}
	res.Security = append(res.Security, ev)
	return s.AppendLedger(tx, is.ID, audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.KindProvenanceConflict, Reason: d.Conflict, Type: audit.TypeSecurity})
}

// ReviewableIssue is an issue in review the session may approve.
type ReviewableIssue struct {
	Issue *repo.Issue
	// NeedsReason is true when only the creator exception allows it, so
	// approve needs --reason.
	NeedsReason bool
	// NeedsOverride is true when acceptance criteria are still open, so
	// only an operator approves it, with --override-open-criteria.
	NeedsOverride bool
	// Refusal is why the session may not approve it, "" when it may
	// (only ReviewAll returns such issues).
	Refusal string
}

// Reviewable lists the issues in review that the session may approve under
// the policy in force: the one filter behind td reviewable, td list
// --reviewable and td status. Files td cannot read are returned as errors
// beside the rest.
func Reviewable(s *repo.Store, se *repo.Session) ([]ReviewableIssue, []error, error) {
	all, perrs, err := ReviewAll(s, se)
	if err != nil {
		return nil, nil, err
	}
	out := all[:0]
	for _, ri := range all {
		if ri.Refusal == "" {
			out = append(out, ri)
		}
	}
	return out, perrs, nil
}

// ReviewAll lists every issue in review with the policy's answer for the
// session: allowed, allowed with --reason, or the refusal td approve would
// give (td reviewable --all). It writes nothing, not even the provenance
// conflict td approve would record.
func ReviewAll(s *repo.Store, se *repo.Session) ([]ReviewableIssue, []error, error) {
	rv, err := NewVerdicts(s)
	if err != nil {
		return nil, nil, err
	}
	list, perrs, err := s.List(repo.Filter{Statuses: []string{string(domain.StatusInReview)}})
	if err != nil {
		return nil, nil, err
	}
	// Load the committed-history facts once, then read the ledgers in
	// parallel: at a thousand issues in review the reads dominate.
	if _, err := s.IssueGitFacts(""); err != nil {
		return nil, nil, err
	}
	type answer struct {
		d        policy.Decision
		override bool // the criteria gate wants --override-open-criteria
		err      error
	}
	answers := make([]answer, len(list))
	repo.ForEach(len(list), repo.IOWorkers(), 2, func(i int) {
		a := &answers[i]
		// td approve asks the criteria gate first: open criteria refuse
		// anyone but an operator, who overrides them with a reason.
		if t := list[i].Tally(); t.CriteriaDone < t.CriteriaTotal {
			if refusal, err := rv.openCriteria(list[i], se); err != nil || refusal != "" {
				a.d.Refusal, a.err = refusal, err
				return
			}
			a.override = true
		}
		a.d, a.err = rv.Judge(list[i], se, Ask{})
	})
	s.SaveLedgerCache()
	var out []ReviewableIssue
	for i, a := range answers {
		switch {
		case a.err != nil:
			perrs = append(perrs, a.err)
		case a.d.Allowed:
			out = append(out, ReviewableIssue{Issue: list[i], NeedsOverride: a.override})
		case a.d.ReasonRequired:
			out = append(out, ReviewableIssue{Issue: list[i], NeedsReason: true, NeedsOverride: a.override})
		default:
			refusal := a.d.Refusal
			if refusal == "" {
				refusal = "the review policy refuses it"
			}
			out = append(out, ReviewableIssue{Issue: list[i], Refusal: refusal})
		}
	}
	return out, perrs, nil
}

// Submitted lists the issues in review that the session submitted (the
// last submitted entry in each ledger names it).
func Submitted(s *repo.Store, se *repo.Session) ([]*repo.Issue, error) {
	list, _, err := s.List(repo.Filter{Statuses: []string{string(domain.StatusInReview)}})
	if err != nil {
		return nil, err
	}
	var out []*repo.Issue
	for _, is := range list {
		entries, _, err := s.Ledger(is.ID)
		if err != nil {
			continue
		}
		last := ""
		for _, e := range entries {
			if e.Action == audit.ActionSubmitted {
				last = e.Session
			}
		}
		if last == se.ID {
			out = append(out, is)
		}
	}
	return out, nil
}
