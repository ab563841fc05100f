package policy

import (
	"time"

	"github.com/tdproject/td/policy/domain"
)

// ClaimVerdict is what a session asking for an issue's claim may do.
type ClaimVerdict int

// The verdicts of MayClaim.
const (
	// ClaimTake: nobody holds the issue; the session takes it.
	ClaimTake ClaimVerdict = iota
	// ClaimRenew: the session holds it already; the lease is renewed.
	ClaimRenew
	// ClaimHeld: another session holds a live lease; refused.
	ClaimHeld
	// ClaimExpired: another session's lease has ended; only td reclaim,
	// which is audited, takes it.
	ClaimExpired
)

// ClaimAsk is who asks for an issue's claim.
type ClaimAsk struct {
	Session string // the claimant
	// HandOver names a session whose live claim may pass to the claimant
	// (the sender of td send), "" for none.
	HandOver string
	// OperatorHere is true when an operator hands the issue over (td send)
	// from the work tree, on the machine, that holds the claim: there the
	// issue file is the operator's to reassign, as td unstart may hand
	// back anyone's issue, so the claim follows.
	OperatorHere bool
}

// MayClaim decides a claim on an issue held as held (nil when nobody
// holds it) at now. The same actor in another session is another
// claimant: a session is one conversation, and two of them on one issue
// is what claims prevent.
func MayClaim(held *domain.Claim, ask ClaimAsk, now time.Time) ClaimVerdict {
	switch {
	case held == nil:
		return ClaimTake
	case held.Session == ask.Session:
		return ClaimRenew
	case ask.OperatorHere:
		return ClaimTake
	case ask.HandOver != "" && held.Session == ask.HandOver && !held.Expired(now):
		return ClaimTake
	case held.Expired(now):
		return ClaimExpired
	}
	return ClaimHeld
}

// ReclaimVerdict is what td reclaim may do with an issue's claim.
type ReclaimVerdict int

// The verdicts of MayReclaim.
const (
	// ReclaimTake: the lease has ended; the session takes it, audited.
	ReclaimTake ReclaimVerdict = iota
	// ReclaimNothing: nobody holds the issue; td start claims it.
	ReclaimNothing
	// ReclaimOwn: the session holds it; td heartbeat renews it.
	ReclaimOwn
	// ReclaimLive: another session's lease is still running; refused.
	ReclaimLive
)

// MayReclaim decides td reclaim by session on a claim held as held (nil
// for none) at now: only an ended lease of another session is taken.
func MayReclaim(held *domain.Claim, session string, now time.Time) ReclaimVerdict {
	switch {
	case held == nil:
		return ReclaimNothing
	case held.Session == session:
		return ReclaimOwn
	case !held.Expired(now):
		return ReclaimLive
	}
	return ReclaimTake
}

// ReleasedBy reports whether a transition that ends the work on an issue
// (unstart, close, approve) releases held: it does when the claim is the
// acting session's or the implementer's, whose work ends. A claim
// another session took since (td reclaim, another work tree) is not this
// transition's to end, and stays.
func ReleasedBy(held *domain.Claim, session, implementer string) bool {
	return held != nil && (held.Session == session || implementer != "" && held.Session == implementer)
}

// WorkEnd is an entry of an issue's ledger that ends the work a claim was
// taken for: td unstart hands it back, td close and td approve finish it,
// td reopen begins it anew. A claim taken before it covers nothing after
// it.
type WorkEnd struct {
	TS      time.Time
	Action  string // the ledger's action: one of the End… names
	Session string
}

// The ledger actions that end the work (audit's names for them).
const (
	EndUnstarted = "unstarted"
	EndClosed    = "closed"
	EndApproved  = "approved"
	EndReopened  = "reopened"
)

// ClaimEnd returns the entry of the ledger (ends, in any order)
// that ended the work held was taken for: the earliest end recorded after
// the claim was taken. Times are whole seconds: an end in the very second
// the claim was taken ended it only when the taker's ledger had not seen
// it, which the claim's EndsSeen tells (a record that does not say counts
// such an end as seen). ok is false while the work goes on.
//
// The rule reads the ledger of the reader's work tree: a claim on an
// issue approved in another clone ends once the approval is merged here,
// and a claim taken on a branch where the issue was reopened stands,
// since nothing here ended it after it was taken.
func ClaimEnd(held *domain.Claim, ends []WorkEnd) (end WorkEnd, ok bool) {
	if held == nil {
		return WorkEnd{}, false
	}
	at := held.Claimed.UTC().Truncate(time.Second)
	same := 0
	for _, e := range ends {
		if e.TS.UTC().Truncate(time.Second).Equal(at) {
			same++
		}
	}
	for _, e := range ends {
		t := e.TS.UTC().Truncate(time.Second)
		after := t.After(at) || t.Equal(at) && held.EndsSeen >= 0 && same > held.EndsSeen
		if after && (!ok || t.Before(end.TS)) {
			end, ok = e, true
		}
	}
	return end, ok
}

// ClosedBy returns the last entry of an issue's ledger ends (in any
// order) when it closed the issue (td close or td approve): ok is false
// for an issue whose last end reopened it or handed it back, or that has
// none.
func ClosedBy(ends []WorkEnd) (last WorkEnd, ok bool) {
	for i, e := range ends {
		if i == 0 || e.TS.After(last.TS) {
			last = e
		}
	}
	return last, len(ends) > 0 && (last.Action == EndClosed || last.Action == EndApproved)
}

// ReopenedAfter reports whether ends record a reopen after end.
func ReopenedAfter(ends []WorkEnd, end WorkEnd) bool {
	for _, e := range ends {
		if e.Action == EndReopened && e.TS.After(end.TS) {
			return true
		}
	}
	return false
}

// EndsAt counts the ends recorded in the second at: what a claim taken
// then records as seen (domain.Claim.EndsSeen).
func EndsAt(ends []WorkEnd, at time.Time) int {
	at = at.UTC().Truncate(time.Second)
	n := 0
	for _, e := range ends {
		if e.TS.UTC().Truncate(time.Second).Equal(at) {
			n++
		}
	}
	return n
}

// Work is what a claim reserves: the work on its issue the ledger records
// (td start, td review, a criterion ticked). A reviewer's approve or
// reject is not the holder's to do, and not reserved.
type Work int

// The kinds of work a claim reserves.
const (
	WorkStart Work = iota
	WorkSubmit
	WorkCriterion
)

// ClaimBars is the one decision on work done on a claimed issue, made by
// td when the work is done and by td check's claims rule when a pull
// request carries it: whether held bars work w by actor (an operator when
// operator is true) at at, given the ledger ends. Nothing bars
// the holder's own actor, work outside the lease (before the claim could
// be seen, at or after it expired), or work after the ledger ended the
// claim (ClaimEnd). An operator may tick an acceptance criterion on an
// issue someone else holds: the criteria are the operator's definition of
// done, and signing them off is theirs (seed 003; section 13 of the
// specification). Every other actor's work is barred while the lease runs.
//
// A claim can be seen from when it was published to the claims remote
// (domain.Claim.Published), where td start in every clone compares
// before it claims: work recorded in that second or before it is work
// whose own claim was published first, or that could not have known, and
// the claim does not bar it. A record that does not say when it was
// published (taken by a td that did not publish) is seen from the second
// it was taken.
func ClaimBars(held *domain.Claim, ends []WorkEnd, w Work, actor domain.Actor, operator bool, at time.Time) bool {
	if held == nil || held.Actor.Same(actor) {
		return false
	}
	if !visibleAt(held, at) || !at.Before(held.Expires) {
		return false
	}
	if end, ok := ClaimEnd(held, ends); ok && !at.Before(end.TS) {
		return false
	}
	return !(w == WorkCriterion && operator)
}

// visibleAt reports whether work recorded at at came after the claim
// could be seen (ClaimBars).
func visibleAt(held *domain.Claim, at time.Time) bool {
	at = at.UTC().Truncate(time.Second)
	if held.Published.IsZero() {
		return !at.Before(held.Claimed.UTC().Truncate(time.Second))
	}
	return at.After(held.Published.UTC().Truncate(time.Second))
}

// ClaimJudgement is td check's verdict on one piece of work in a pull
// request against the claim.
type ClaimJudgement int

// The judgements of JudgeClaimedWork.
const (
	// ClaimWorkPasses: the claim does not bar the work.
	ClaimWorkPasses ClaimJudgement = iota
	// ClaimWorkBarred: the claim barred the work when it was done; a
	// violation.
	ClaimWorkBarred
	// ClaimWorkUnseen: a start the claim would bar, whose own claim td
	// could not compare with the claims remote (it could not be reached,
	// or claims.publish is off), so the starter could not have seen the
	// claim it ran into. The start passes, with a note: td sync settles
	// who holds the issue, and the starter's later work is judged as
	// anyone's.
	ClaimWorkUnseen
)

// JudgeClaimedWork is the claims rule of td check on work w by actor at
// at: ClaimBars, except for a start whose claim was not published
// (unpublished), which td accepted with a warning and which passes with a
// note.
func JudgeClaimedWork(held *domain.Claim, ends []WorkEnd, w Work, actor domain.Actor, operator bool, at time.Time, unpublished bool) ClaimJudgement {
	if !ClaimBars(held, ends, w, actor, operator, at) {
		return ClaimWorkPasses
	}
	if w == WorkStart && unpublished {
		return ClaimWorkUnseen
	}
	return ClaimWorkBarred
}

// MayReleaseStray decides td unstart on an issue that is not in progress
// but still has a claim: the holder's actor, or an operator, releases it.
func MayReleaseStray(held *domain.Claim, actor domain.Actor, operator bool) bool {
	return held != nil && (held.Actor.Same(actor) || operator)
}

// LeaseSkew is how far a claim's times may run ahead of this machine's
// clock and still be a lease td gave: another clone's clock may be ahead.
const LeaseSkew = 10 * time.Minute

// LeaseBeyond reports whether claim c holds a lease no td could have
// given at now with the lease ttl: it ends after now + ttl (beyond the
// configured maximum, clock skew aside), or it was taken or renewed in
// the future. Such a record was written by hand (a forged reference with
// a lease to 9999 would bar the issue for good); td refuses it as
// nobody's claim, td sync does not spread it, and td doctor --fix
// releases it. A lease given under a longer claims.ttl than the config
// now sets counts too: the maximum is the config's.
func LeaseBeyond(c *domain.Claim, ttl time.Duration, now time.Time) bool {
	if c == nil {
		return false
	}
	limit := now.Add(ttl + LeaseSkew)
	return c.Expires.After(limit) || c.Heartbeat.After(now.Add(LeaseSkew)) || c.Claimed.After(now.Add(LeaseSkew))
}
