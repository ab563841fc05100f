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
