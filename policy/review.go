package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// Mode is the review policy in force for non-minor issues.
type Mode string

// The review policies. Balanced is the default; strict is the rollback.
const (
	// Strict blocks every session with any history on the issue.
	Strict Mode = "strict"
	// Balanced blocks implementers and involved sessions but lets the creator
	// approve another session's work with a reason.
	Balanced Mode = "balanced"
)

// ModeFor returns the review mode the balanced_review_policy flag selects.
func ModeFor(balanced bool) Mode {
	if balanced {
		return Balanced
	}
	return Strict
}

// Rules are the review policy's settings, as the feature flags in force
// set them: td approve reads them from the config CI will read, td check
// --base from the base's.
type Rules struct {
	// Mode is the table for non-minor issues (balanced_review_policy).
	Mode Mode
	// AgentApproval lets an agent approve under the table as a person
	// may (agent_approval); false requires a person for every approval.
	AgentApproval bool
}

// RulesFor returns the rules the flags select: balanced_review_policy
// and agent_approval.
func RulesFor(balanced, agentApproval bool) Rules {
	return Rules{Mode: ModeFor(balanced), AgentApproval: agentApproval}
}

// DefaultRules are the rules of a config that sets no flag.
func DefaultRules() Rules { return RulesFor(true, true) }

// Sources of a creator claim, in the order conflicts are described.
const (
	SourceFrontmatter = "frontmatter" // created_by in the issue file
	SourceLedger      = "ledger"      // the session of the ledger's created entry
	SourceCommit      = "commit"      // the commit that added the issue file
)

// Claim is one source's word on who created an issue. A commit without a
// Td-Session trailer claims only its Author ("Name <email>").
type Claim struct {
	Source  string
	Session string
	Author  string
}

// self reports whether session id is the reviewer's: the reviewer itself,
// or another session of the same actor.
func (f Facts) self(id string) bool {
	return id != "" && (id == f.Reviewer || slices.Contains(f.ReviewerSessions, id))
}

// who names session id in a refusal. A session of the reviewer's actor is
// named by the actor and its ID, "Alice (ses_2gjk0mcq)", when the name is
// known; the session td starts for the reviewer with this very command by
// the name alone, since a refused command leaves no session behind; any
// other session by its ID.
func (f Facts) who(id string) string {
	if f.ReviewerName == "" || !f.self(id) {
		return id
	}
	if id == f.Reviewer && f.ReviewerNew {
		return f.ReviewerName
	}
	return f.ReviewerName + " (" + id + ")"
}

// agent reports whether the reviewer acts as an agent.
func (f Facts) agent() bool { return f.ReviewerRole == domain.RoleAgent || f.ReviewerAgent != "" }

// heldTo says that session id did something the reviewer is held to (the
// reviewer did, or another session of its actor did), then who must
// decide instead: since an actor's sessions are refused alike, a
// different person or agent. When another session of the actor did it,
// the sentence says the reviewer acts for the same actor.
func (f Facts) heldTo(id, did string, v verb) string {
	const instead = "a different person or agent"
	if id == f.Reviewer {
		return fmt.Sprintf("%s %s; %s", f.who(id), did, f.mustInstead(instead, v))
	}
	return fmt.Sprintf("%s %s, and you act for %s too; %s", f.who(id), did, actorOrSame(f.ReviewerActor), f.mustInstead(instead, v))
}

// mustInstead says who must approve or close instead of the reviewer; a
// person is also told of the audited self-close exception, an agent never.
func (f Facts) mustInstead(who string, v verb) string {
	s := who + " must " + v.String() + " it"
	if v == verbClose && !f.agent() && !f.noWayRound {
		s += `, or pass --self-close-exception "why" to close it anyway (audited)`
	}
	return s
}

// creatorSession is the session of the reviewer's actor that the creator
// claims name, for refusals to name; the reviewer when none does.
func (f Facts) creatorSession() string {
	for _, c := range evidence(f.CreatorClaims) {
		if f.self(c.Session) {
			return c.Session
		}
	}
	return f.Reviewer
}

func actorOrSame(actor string) string {
	if actor == "" {
		return "the same actor"
	}
	return actor
}

// implemented reports whether anyone started the issue, as the
// frontmatter or the history tell.
func (f Facts) implemented() bool { return f.Implementer != "" || len(f.ImplementationHistory) > 0 }

// names reports whether the claim names any creator at all.
func (c Claim) names() bool { return c.Session != "" || c.Author != "" }

// Facts is what the caller found about an issue and the session asking to
// approve or close it. The policy trusts no single source: it combines them.
type Facts struct {
	// IssueID names the issue in refusal messages; "this issue" when empty.
	IssueID string
	// Reviewer is the session asking to approve or close.
	Reviewer string
	// ReviewerAuthor is the reviewer's git identity, "Name <email>".
	ReviewerAuthor string
	// Minor issues may be approved by anyone, their implementer included.
	Minor bool
	// MinorMarkedBy lists the sessions that turned the issue minor after it
	// was filed. The minor bypass does not cover them: otherwise an
	// implementer could mark its own work minor and approve it.
	MinorMarkedBy []string
	// CreatorClaims holds each source's claim on who created the issue.
	CreatorClaims []Claim
	// Implementer is the frontmatter implementer.
	Implementer string
	// ImplementationHistory lists the sessions with started or unstarted in the
	// ledger or in a commit trailer (Td-Action: started|unstarted).
	ImplementationHistory []string
	// Workers lists the sessions that did the work without starting it:
	// bound to the issue (the ledger, a commit's trailer, or this clone's
	// record of the session), or holding its claim. Like an implementer,
	// none of them signs the work off: not by approving it, not by
	// closing it as done, started or not.
	Workers []string
	// Involved lists every session with any ledger entry or commit trailer on
	// the issue.
	Involved []string
	// ReviewerSessions lists the other sessions of the reviewer's actor:
	// the same git identity and the same agent path ("" for the person).
	// The policy judges involvement per actor, so what any of them did
	// counts as the reviewer's.
	ReviewerSessions []string
	// ReviewerActor names the reviewer's actor in refusals, such as
	// "Bob <bob@example.com>" or "agent primary of Bob <bob@example.com>".
	ReviewerActor string
	// ReviewerAgent is the agent path of the reviewer's actor ("primary",
	// "primary.subagents.ui"), "" for a person. A subagent never approves.
	ReviewerAgent string
	// ReviewerRole is the reviewer's role under the operators in force:
	// operator, member or agent. Only an operator signs off acceptance
	// criteria; an agent's refusals name no way round the policy (no
	// --self-close-exception). Empty counts as neither operator nor agent.
	ReviewerRole domain.Role
	// ReviewerName names the reviewer's actor in refusals: "Alice", or
	// "primary agent of Alice"; "" names sessions by their IDs alone.
	ReviewerName string
	// ReviewerNew is true when the reviewer's session is the one td
	// starts with this command: a refusal leaves no such session behind,
	// so refusals name the person, never its ID.
	ReviewerNew bool
	// Criteria counts the issue's acceptance criteria that were not
	// dropped, as they stood at the decision: the operator's definition
	// of done, which only an operator signs off.
	Criteria int
	// LedgerImplementer is who the ledger says is working on the issue now:
	// the session of the last "started" not followed by "unstarted"; "" when
	// the ledger does not say.
	LedgerImplementer string
	// LateAfter names the agent session whose start makes the reviewer a
	// late operator session: the reviewer is a person's session whose
	// identity file reached the branch after an agent of the same git
	// identity started the work there (the commits tell the order, never
	// the dates written in the files). An agent that shares its person's
	// identity could otherwise start a session of that person's and
	// approve its own work. "" when the rule does not apply.
	LateAfter string
	// LateEarlier names a session of the reviewer's person that predates
	// the work, for the refusal LateAfter causes to offer; "" when none.
	LateEarlier string
	// CommitAs is the git identity the sign-off will be committed under
	// (td's commit in git mode auto, the person's after td stages it);
	// "" when unknown. A sign-off committed under another person's name
	// than the reviewer's is refused: CI flags it.
	CommitAs string

	// noWayRound is set while deciding when a rule no exception passes
	// refuses the reviewer: its refusals offer no self-close exception.
	noWayRound bool
}

// Decision is the answer to "may this session approve (or close) this issue",
// with what the caller must record alongside it.
type Decision struct {
	// Allowed says whether the action may go ahead.
	Allowed bool
	// CreatorException marks an approval allowed only through the creator
	// exception; the caller audits it twice (ledger and security events).
	CreatorException bool
	// SelfCloseException marks a close allowed only through
	// --self-close-exception; the caller audits it.
	SelfCloseException bool
	// ReasonRequired says the refusal is only for the missing --reason.
	ReasonRequired bool
	// Refusal is one sentence saying why not and what would make it pass;
	// empty when allowed.
	Refusal string
	// Conflict is non-empty when the sources disagree about the creator; the
	// caller writes a security event with it, allowed or not.
	Conflict string
}

// Approval decides whether f.Reviewer may approve the issue under rules,
// with reason as given to --reason. Any mode other than Balanced is
// strict.
func Approval(rules Rules, f Facts, reason string) Decision {
	d, _ := decide(rules, f, reason, verbApprove, true)
	return d
}

// Close decides an admin close (td close) by f.Reviewer, as done when
// asDone (resolution done) and otherwise as wontfix or a duplicate. An
// issue nobody has started, and (for a close as done) nobody has worked
// on (Workers), has nothing to review and may be closed by anyone;
// otherwise the approval rules apply with reason as the close
// reason, and a non-empty selfCloseReason turns a refusal of the table
// into an audited self-close exception. Who may sign off at all (no
// subagent, an operator for acceptance criteria, a person when
// agent_approval is off) no exception changes.
func Close(rules Rules, f Facts, asDone bool, reason, selfCloseReason string) Decision {
	// A close as done is a sign-off like an approval: whoever did the
	// work goes through the table, started or not.
	if f.Reviewer != "" && !f.implemented() && (!asDone || len(f.Workers) == 0) {
		_, conflict := Creator(f.CreatorClaims)
		msg := f.subagentRefusal(verbClose)
		if msg == "" {
			msg = f.signOffRefusal(rules, verbClose, asDone, false)
		}
		if msg == "" {
			msg = f.committerRefusal(verbClose, asDone)
		}
		if msg != "" {
			return Decision{Refusal: msg, Conflict: conflict}
		}
		return Decision{Allowed: true, Conflict: conflict}
	}
	d, hard := decide(rules, f, reason, verbClose, asDone)
	if !d.Allowed && f.Reviewer != "" && strings.TrimSpace(selfCloseReason) != "" {
		if hard != "" {
			// Asked for the exception, the reviewer hears why none applies.
			return Decision{Refusal: hard, Conflict: d.Conflict}
		}
		return Decision{Allowed: true, SelfCloseException: true, Conflict: d.Conflict}
	}
	return d
}

// Reviewable reports whether f.Reviewer could approve the issue, and whether
// it would need a reason to (the creator exception). It is the filter behind
// td reviewable and every reviewable listing.
func Reviewable(rules Rules, f Facts) (ok bool, needsReason bool) {
	d := Approval(rules, f, "")
	switch {
	case d.Allowed:
		return true, false
	case d.ReasonRequired:
		return true, true
	}
	return false, false
}

// Creator reconciles the creator claims. It returns the session every
// session-naming claim agrees on (empty when none names one), or a conflict
// saying which sources said what when claims of the same kind disagree:
// two sessions, or two commit authors. A session and an author cannot be
// compared without the session's identity; Approval does that.
func Creator(claims []Claim) (session string, conflict string) {
	bySession, byAuthor := splitClaims(claims)
	var conflicts []string
	if c := disagreement(bySession, func(c Claim) string { return c.Session }); c != "" {
		conflicts = append(conflicts, c)
	}
	if c := disagreement(byAuthor, func(c Claim) string { return domain.IdentityKey(c.Author) }); c != "" {
		conflicts = append(conflicts, c)
	}
	if len(conflicts) > 0 {
		return "", strings.Join(conflicts, "; ")
	}
	if len(bySession) > 0 {
		return bySession[0].Session, ""
	}
	return "", ""
}

type verb int

const (
	verbApprove verb = iota
	verbClose
)

func (v verb) String() string {
	if v == verbClose {
		return "close"
	}
	return "approve"
}

// creatorView is what the creator claims say about the reviewer.
type creatorView struct {
	// isCreator: at least one claim names a creator and every one of them
	// names the reviewer, with no conflict.
	isCreator bool
	// named: the claims name the reviewer as (possibly) the creator, so it
	// counts as involved.
	named bool
	// unconfirmed: only the frontmatter names the reviewer; no ledger entry
	// or commit says so.
	unconfirmed bool
	conflict    string
}

// evidence is the claims that count. When the ledger or a commit's
// Td-Session trailer names the creating session, a commit that names only
// its author is not evidence: a merge, squash merge, rebase or cherry-pick
// brings the file in under the name of whoever landed it, not whoever
// created the issue. The author counts only when nothing names a session
// but the hand-editable frontmatter.
func evidence(claims []Claim) []Claim {
	named := slices.ContainsFunc(claims, func(c Claim) bool { return c.Source != SourceFrontmatter && c.Session != "" })
	if !named {
		return claims
	}
	return slices.DeleteFunc(slices.Clone(claims), func(c Claim) bool { return c.Session == "" && c.Author != "" })
}

// splitClaims sorts the claims that count (evidence) by source and splits
// those naming a session from those naming only a commit author. Claims
// naming nobody are dropped.
func splitClaims(claims []Claim) (bySession, byAuthor []Claim) {
	sorted := evidence(claims)
	sort.SliceStable(sorted, func(i, j int) bool { return sourceRank(sorted[i].Source) < sourceRank(sorted[j].Source) })
	for _, c := range sorted {
		switch {
		case c.Session != "":
			bySession = append(bySession, c)
		case c.Author != "":
			byAuthor = append(byAuthor, c)
		}
	}
	return bySession, byAuthor
}

func sourceRank(s string) int {
	switch s {
	case SourceFrontmatter:
		return 0
	case SourceLedger:
		return 1
	case SourceCommit:
		return 2
	}
	return 3
}

// disagreement describes the claims that differ from the first one, or
// returns "" when all agree.
func disagreement(claims []Claim, key func(Claim) string) string {
	if len(claims) < 2 {
		return ""
	}
	ref := claims[0]
	var others []string
	for _, c := range claims[1:] {
		if key(c) != key(ref) {
			others = append(others, describe(c))
		}
	}
	if len(others) == 0 {
		return ""
	}
	return describe(ref) + " but " + strings.Join(others, " and ")
}

// describe says what one claim says, as a clause of a conflict message.
func describe(c Claim) string {
	switch {
	case c.Session == "":
		if c.Source == SourceCommit {
			return "the creating commit is by " + c.Author
		}
		return fmt.Sprintf("%s says the creator is %s", c.Source, c.Author)
	case c.Source == SourceFrontmatter:
		return "frontmatter says created_by " + c.Session
	case c.Source == SourceLedger:
		return "the ledger says " + c.Session
	case c.Source == SourceCommit:
		return "the commit trailer says " + c.Session
	}
	return fmt.Sprintf("%s says %s", c.Source, c.Session)
}

// viewCreator reads the creator claims from the reviewer's side. The stricter
// reading: the reviewer is the creator only when every claim names it; when
// the claims disagree nobody is, and every claimed session is involved.
func viewCreator(f Facts) creatorView {
	r, ra := f.Reviewer, f.ReviewerAuthor
	bySession, byAuthor := splitClaims(f.CreatorClaims)
	_, conflict := Creator(f.CreatorClaims)
	authorMatches := func(c Claim) bool { return domain.SameIdentity(c.Author, ra) }
	if conflict != "" {
		named := slices.ContainsFunc(bySession, func(c Claim) bool { return f.self(c.Session) }) ||
			slices.ContainsFunc(byAuthor, authorMatches)
		return creatorView{named: named, conflict: conflict}
	}
	// Session claims agree among themselves, author claims likewise.
	switch {
	case len(bySession) > 0 && f.self(bySession[0].Session):
		if len(byAuthor) == 0 || authorMatches(byAuthor[0]) {
			// The frontmatter is hand-editable: alone it proves nothing.
			if !slices.ContainsFunc(f.CreatorClaims, func(c Claim) bool { return c.Source != SourceFrontmatter && c.names() }) {
				return creatorView{named: true, unconfirmed: true}
			}
			return creatorView{isCreator: true, named: true}
		}
		v := creatorView{named: true}
		if ra != "" {
			v.conflict = fmt.Sprintf("%s but %s, not %s's identity %s", describe(bySession[0]), describe(byAuthor[0]), r, ra)
		}
		return v
	case len(bySession) == 0 && len(byAuthor) > 0 && authorMatches(byAuthor[0]):
		return creatorView{isCreator: true, named: true}
	}
	// Another session created it; an author-only claim matching the reviewer's
	// identity is another session of the same person.
	return creatorView{}
}

// decide applies the approval rules; v says whether the session approves or
// closes, and asDone whether a close is as done. hard is the refusal of a
// rule no self-close exception passes, who may sign off at all, when one
// refuses the reviewer; the table's own refusal may come first in d.
func decide(rules Rules, f Facts, reason string, v verb, asDone bool) (d Decision, hard string) {
	cv := viewCreator(f)
	d, hard = decideRules(rules, f, cv, reason, v, asDone)
	d.Conflict = cv.conflict
	if c := implementerConflict(f); c != "" {
		if d.Conflict != "" {
			d.Conflict += "; "
		}
		d.Conflict += c
	}
	return d, hard
}

// implementerConflict describes a frontmatter implementer that the ledger
// contradicts. Both sessions count already (the field as implementer, the
// ledger's as implementation history); the caller records the disagreement.
func implementerConflict(f Facts) string {
	if f.LedgerImplementer == "" || f.Implementer == f.LedgerImplementer {
		return ""
	}
	if f.Implementer == "" {
		return "frontmatter has no implementer but the ledger says " + f.LedgerImplementer + " started the work"
	}
	return "frontmatter says implementer " + f.Implementer + " but the ledger says " + f.LedgerImplementer + " started the work"
}

func decideRules(rules Rules, f Facts, cv creatorView, reason string, v verb, asDone bool) (Decision, string) {
	r := f.Reviewer
	issue := issueOrThis(f.IssueID)
	if r == "" {
		msg := fmt.Sprintf("no session is asking to %s %s; start one with td session start", v, issue)
		return refused(msg), msg
	}
	if msg := f.subagentRefusal(v); msg != "" {
		return refused(msg), msg
	}
	// What the table cannot change: no self-close exception passes it, so
	// a refusal of the table does not offer one.
	signOff := f.signOffRefusal(rules, v, asDone, true)
	if signOff != "" {
		f.noWayRound = true
	}
	var d Decision
	if f.Minor && !slices.ContainsFunc(f.MinorMarkedBy, f.self) {
		d = Decision{Allowed: true}
	} else {
		d = decideInvolvement(rules.Mode, f, cv, reason, v)
		if f.Minor && d.Refusal != "" {
			marker := f.MinorMarkedBy[slices.IndexFunc(f.MinorMarkedBy, f.self)]
			d.Refusal = fmt.Sprintf("%s marked %s minor itself, so the minor bypass does not apply: %s", f.who(marker), issue, d.Refusal)
		}
	}
	if !d.Allowed && !d.ReasonRequired {
		// The table speaks first: whoever did the work hears that.
		return d, signOff
	}
	if v == verbApprove && f.LateAfter != "" && f.ReviewerAgent == "" {
		msg := lateRefusal(f)
		return refused(msg), msg
	}
	if signOff != "" {
		return refused(signOff), signOff
	}
	if msg := f.committerRefusal(v, asDone); msg != "" {
		return refused(msg), msg
	}
	return d, ""
}

// subagentRefusal refuses a subagent's approval or close: subagents never
// approve or change issues (seed 003); "" for anyone else.
func (f Facts) subagentRefusal(v verb) string {
	p := domain.AgentPath(f.ReviewerAgent)
	if !p.IsSubagent() {
		return ""
	}
	return fmt.Sprintf("%s is a subagent, and subagents never %s or change issues; its root agent %s or a person decides the review", f.who(f.Reviewer), v, p.Root())
}

// signOffRefusal applies what the table leaves open, who may sign the
// issue off at all: an approval, or a close as done (asDone), of an issue
// with acceptance criteria needs an operator, the owner of the definition
// of done; with agent_approval off, an approval by an agent (or its close
// as done of work someone implemented) needs a person. implemented says
// whether the table was asked, which a close of an issue nobody started
// skips. "" when nothing refuses it.
func (f Facts) signOffRefusal(rules Rules, v verb, asDone, implemented bool) string {
	done := v == verbApprove || asDone
	if !done {
		return ""
	}
	id := f.IssueID
	if id == "" {
		id = "ID"
	}
	issue := issueOrThis(f.IssueID)
	r := f.who(f.Reviewer)
	if f.agent() && !rules.AgentApproval && implemented {
		return fmt.Sprintf("%s is an agent, and agent_approval is off: this team wants a person for every approval; a person %ss it (td review %s asks for the sign-off)", r, v, id)
	}
	if f.Criteria == 0 || f.ReviewerRole == domain.RoleOperator {
		return ""
	}
	what := "an agent"
	if !f.agent() {
		what = "a member (a person not listed in operators)"
	}
	return fmt.Sprintf("%s has acceptance criteria, the operator's definition of done, and only an operator signs them off; %s is %s, so an operator %ss it (td review %s asks for the sign-off)", issue, r, what, v, id)
}

// committerRefusal refuses a sign-off (an approval, a close as done) that
// git would commit under another person's identity than the reviewer's:
// td check --base flags a sign-off whose commit's author is not its
// session's person. "" when git's identity is unknown or the same.
func (f Facts) committerRefusal(v verb, asDone bool) string {
	if v != verbApprove && !asDone || f.CommitAs == "" || f.ReviewerAuthor == "" || domain.SameIdentity(f.CommitAs, f.ReviewerAuthor) {
		return ""
	}
	return fmt.Sprintf("git commits here as %s, and %s acts for %s: a sign-off is committed by whoever made it, and td check --base flags one under another name; %s it as %s (their own clone, or git config user.email), or from a session of your own", f.CommitAs, f.who(f.Reviewer), f.ReviewerAuthor, v, f.ReviewerAuthor)
}

// lateRefusal says why a late operator session may not approve, and who
// may: a session of the person's from before the work, or another
// operator.
func lateRefusal(f Facts) string {
	who := f.ReviewerAuthor
	if who == "" {
		who = "the same git identity"
	}
	instead := "a person signs off from a session that predates the work, or another operator approves"
	if f.LateEarlier != "" {
		id := f.IssueID
		if id == "" {
			id = "ID"
		}
		instead = fmt.Sprintf("a person signs off from a session that predates the work (td approve %s --session %s), or another operator approves", id, f.LateEarlier)
	}
	return fmt.Sprintf("%s is a person's session first seen after %s, an agent of the same identity (%s), started the work; %s", f.who(f.Reviewer), f.LateAfter, who, instead)
}

// decideInvolvement applies the rules for a non-minor issue: the hard block
// on implementers, then the strict or balanced treatment of the creator and
// every other involved session.
func decideInvolvement(mode Mode, f Facts, cv creatorView, reason string, v verb) Decision {
	r := f.who(f.Reviewer)
	issue := issueOrThis(f.IssueID)
	const noHistory = "a session with no history on it"
	uninvolved := f.mustInstead(noHistory, v)

	// Hard block, in both modes: nobody signs off their own work.
	if f.self(f.Implementer) {
		return refused(f.heldTo(f.Implementer, "implements "+issue, v))
	}
	if i := slices.IndexFunc(f.ImplementationHistory, f.self); i >= 0 {
		return refused(f.heldTo(f.ImplementationHistory[i], "implemented "+issue+" (it started the work)", v))
	}
	if i := slices.IndexFunc(f.Workers, f.self); i >= 0 {
		return refused(f.heldTo(f.Workers[i], "worked on "+issue+" (it was bound to it or held its claim)", v))
	}

	creator := f.who(f.creatorSession())
	if mode != Balanced {
		switch {
		case cv.named && cv.conflict != "":
			return refused(fmt.Sprintf("the sources disagree about who created %s (%s), so %s counts as involved; %s", issue, cv.conflict, r, uninvolved))
		case cv.named:
			return refused(fmt.Sprintf("%s created %s and the strict review policy blocks its creator; %s, or enable balanced_review_policy to let the creator %s with a reason", creator, issue, uninvolved, v))
		case slices.ContainsFunc(f.Involved, f.self):
			return refused(f.involvedRefusal(issue, "has history on "+issue+" and the strict review policy blocks every involved session", v))
		}
		return Decision{Allowed: true}
	}

	implemented := f.implemented() || len(f.Workers) > 0
	switch {
	case cv.isCreator && implemented:
		if strings.TrimSpace(reason) != "" {
			return Decision{Allowed: true, CreatorException: true}
		}
		d := refused(creatorReasonRefusal(creator, f.IssueID, issue, v, f.agent() || f.noWayRound))
		d.ReasonRequired = true
		return d
	case cv.isCreator:
		return refused(fmt.Sprintf("%s created %s and no other session has implemented it, so the creator exception does not apply; %s", creator, issue, uninvolved))
	case cv.named && cv.conflict != "":
		msg := fmt.Sprintf("the sources disagree about who created %s (%s), so %s counts as involved and gets no creator exception; %s", issue, cv.conflict, r, uninvolved)
		if implemented && historyNamesOnly(f) {
			msg += fmt.Sprintf(", or restore created_by: %s in the frontmatter, as the history says, and %s with --reason", f.Reviewer, v)
		}
		return refused(msg)
	case cv.unconfirmed:
		return refused(fmt.Sprintf("only the frontmatter names %s as the creator of %s (no ledger entry or commit confirms it, and the file can be edited by hand), so it gets no creator exception; %s", creator, issue, uninvolved))
	case cv.named:
		return refused(fmt.Sprintf("%s is named as the creator of %s but the creating commit does not confirm it, so it counts as involved; %s", creator, issue, uninvolved))
	case slices.ContainsFunc(f.Involved, f.self):
		return refused(f.involvedRefusal(issue, "is involved in "+issue+" (it has ledger or commit history on it)", v))
	}
	return Decision{Allowed: true}
}

// involvedRefusal refuses a reviewer whose actor has history on the issue:
// did says what the session that has it did.
func (f Facts) involvedRefusal(issue, did string, v verb) string {
	id := f.Involved[slices.IndexFunc(f.Involved, f.self)]
	const noHistory = "a session with no history on it"
	if id == f.Reviewer {
		return fmt.Sprintf("%s %s; %s", f.who(id), did, f.mustInstead(noHistory, v))
	}
	return fmt.Sprintf("%s %s, and you act for %s too; %s", f.who(id), did, actorOrSame(f.ReviewerActor), f.mustInstead("a different person or agent", v))
}

// historyNamesOnly reports whether the frontmatter is the only source that
// disagrees with the reviewer being the creator: every ledger and commit
// claim names the reviewer (by session, or by its git identity), and the
// frontmatter names another session. Restoring created_by would then settle
// the conflict in the reviewer's favour, so a refusal may say so.
func historyNamesOnly(f Facts) bool {
	history, frontmatterOther := false, false
	for _, c := range evidence(f.CreatorClaims) {
		switch {
		case !c.names():
		case c.Source == SourceFrontmatter:
			if !f.self(c.Session) {
				frontmatterOther = true
			}
		case c.Session != "":
			if !f.self(c.Session) {
				return false
			}
			history = true
		default:
			if !domain.SameIdentity(c.Author, f.ReviewerAuthor) {
				return false
			}
		}
	}
	return history && frontmatterOther
}

// creatorReasonRefusal tells the creator (named by creator) that a
// reason is all it lacks.
func creatorReasonRefusal(creator, id, issue string, v verb, agent bool) string {
	arg := id
	if arg == "" {
		arg = "ID"
	}
	if v == verbClose && agent {
		return fmt.Sprintf(`%s created %s: the creator closes it only with a reason, td close %s --reason "..."`, creator, issue, arg)
	}
	if v == verbClose {
		return fmt.Sprintf(`%s created %s: the creator closes it only with a reason, td close %s --reason "...", or --self-close-exception "..."`, creator, issue, arg)
	}
	return fmt.Sprintf(`%s created %s: the creator approves it only with a reason, td approve %s --reason "..."`, creator, issue, arg)
}

func refused(msg string) Decision { return Decision{Refusal: msg} }
