package domain

import "time"

// Claim is a lease on an issue: who works on it, from where, and until
// when. It lives outside the issue file, as a git reference every work
// tree and clone of the repository sees, so that two places cannot start
// the same issue at once.
type Claim struct {
	Issue    string `json:"issue"`
	Session  string `json:"session"`
	Actor    Actor  `json:"actor"`
	Worktree string `json:"worktree"` // absolute path of the work tree that claimed it
	Host     string `json:"host"`     // the machine's host name
	// Claimed is when this session took the lease; Heartbeat when it last
	// renewed it; Expires when the lease ends unless renewed.
	Claimed   time.Time `json:"claimed"`
	Heartbeat time.Time `json:"heartbeat"`
	Expires   time.Time `json:"expires"`
	// EndsSeen is how many entries ending the work (td unstart, close,
	// approve, reopen) the taker's ledger of the issue held at the second
	// the claim was taken: an end recorded in that same second is one the
	// claim came after when the taker had seen it, and one that ended the
	// claim when not (policy.ClaimEnd). -1 when the record does not say.
	EndsSeen int `json:"-"`
	// Published is when this claim was first put on the clone's claims
	// remote, where every clone and CI read it: at once by td start, td
	// send and td reclaim, or by the td sync that pushed a claim taken
	// while the remote could not be reached. Zero when the record does
	// not say: not published yet, or written by a td that did not publish.
	Published time.Time `json:"-"`
}

// Visible is when the claim became one other clones could see: when it
// was published, or, for a record that does not say, when it was taken.
func (c *Claim) Visible() time.Time {
	if !c.Published.IsZero() {
		return c.Published
	}
	return c.Claimed
}

// Expired reports whether the lease has ended at now.
func (c *Claim) Expired(now time.Time) bool { return !now.Before(c.Expires) }
