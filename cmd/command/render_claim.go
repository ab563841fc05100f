package command

import (
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/claims"
)

// claimJSON is a claim as --json shows it, wherever one appears.
type claimJSON struct {
	Issue     string           `json:"issue"`
	Session   string           `json:"session"`
	Actor     string           `json:"actor"`
	Agent     domain.AgentPath `json:"agent,omitempty"`
	Worktree  string           `json:"worktree"`
	Host      string           `json:"host"`
	Claimed   string           `json:"claimed"`
	Heartbeat string           `json:"heartbeat"`
	Expires   string           `json:"expires"`
	Expired   bool             `json:"expired"`
}

// toClaimJSON converts a claim (nil gives nil); expired is whether its
// lease has ended by td's clock.
func toClaimJSON(c *domain.Claim, expired bool) *claimJSON {
	if c == nil {
		return nil
	}
	return &claimJSON{Issue: c.Issue, Session: c.Session, Actor: c.Actor.Identity, Agent: c.Actor.Agent, Worktree: c.Worktree, Host: c.Host,
		Claimed: jsonTime(c.Claimed), Heartbeat: jsonTime(c.Heartbeat), Expires: jsonTime(c.Expires), Expired: expired}
}

// claimLine words a claim for a reader in this work tree: "claimed by Bob
// <bob@example.com> (session ses_c81kd0zz) in the work tree /src/app-2,
// until 2026-11-21T12:00:00Z", or "... lease ended at ..." once it has.
func claimLine(cs *claims.Set, c *domain.Claim, expired bool) string {
	if expired {
		return "claimed by " + c.Actor.Name() + " (session " + c.Session + ") " + cs.Where(c) + ", lease ended at " + jsonTime(c.Expires) + " (td reclaim " + c.Issue + " takes it)"
	}
	return "claimed by " + cs.Holder(c)
}

// issueClaims are the claims worth showing beside issues in this work
// tree: those that tell the reader something the issue file does not
// (claims.Set.Informs). A repository whose claims cannot be listed shows
// none, with a warning.
type issueClaims struct {
	set *claims.Set
	now time.Time
}

// loadIssueClaims lists the repository's claims for the issues a command
// shows.
func (r *runner) loadIssueClaims(s *repo.Store) *issueClaims {
	cs, err := claims.Load(s)
	if err != nil {
		r.st.warnf("claims: %v", err)
	}
	return &issueClaims{set: cs, now: s.Now()}
}

// startIssueClaims is loadIssueClaims on another goroutine
// (claims.LoadAsync), for a command that reads the issues meanwhile. The
// returned function waits for the claims; call it once, on the command's
// goroutine, where its warning is recorded in order.
func (r *runner) startIssueClaims(s *repo.Store) func() *issueClaims {
	wait := claims.LoadAsync(s)
	return func() *issueClaims {
		cs, err := wait()
		if err != nil {
			r.st.warnf("claims: %v", err)
		}
		return &issueClaims{set: cs, now: s.Now()}
	}
}

// loadClaimsOf is loadIssueClaims for a command about the named issues
// only: it reads their claims alone.
func (r *runner) loadClaimsOf(s *repo.Store, ids ...string) *issueClaims {
	cs, err := claims.LoadIssues(s, ids...)
	if err != nil {
		r.st.warnf("claims: %v", err)
	}
	return &issueClaims{set: cs, now: s.Now()}
}

// prefetch reads at once the claims of the issues a list shows.
func (ic *issueClaims) prefetch(list []*repo.Issue) {
	if ic == nil || ic.set == nil || ic.set.Len() == 0 {
		return
	}
	ids := make([]string, len(list))
	for i, is := range list {
		ids[i] = is.ID
	}
	ic.set.Prefetch(ids)
}

// of is the claim to show for is, nil for none.
func (ic *issueClaims) of(is *repo.Issue) *domain.Claim {
	if ic == nil || ic.set == nil || ic.set.Len() == 0 {
		return nil
	}
	c := ic.set.Shown(is.ID, is.Status)
	// A lease that ended is news even on the implementer's own claim:
	// its conversation is over, and the work can be reclaimed.
	if c != nil && c.Expired(ic.now) {
		return c
	}
	if !ic.set.Informs(c, is.Implementer, strings.TrimPrefix(is.Assignee, "session:")) {
		return nil
	}
	return c
}

// json is the claim of is for --json, nil for none.
func (ic *issueClaims) json(is *repo.Issue) *claimJSON {
	c := ic.of(is)
	if c == nil {
		return nil
	}
	return toClaimJSON(c, c.Expired(ic.now))
}

// line is the claim of is in words, "" for none.
func (ic *issueClaims) line(is *repo.Issue) string {
	c := ic.of(is)
	if c == nil {
		return ""
	}
	return claimLine(ic.set, c, c.Expired(ic.now))
}

// short is the claim of is in a few words, as the board's card says it
// ("claimed by primary agent of Alice in ../wt until 20:17 UTC"), "" for
// none: for a line of a list, where the session and the full path are
// noise (td show names them).
func (ic *issueClaims) short(is *repo.Issue) string {
	c := ic.of(is)
	if c == nil {
		return ""
	}
	if c.Expired(ic.now) {
		return board.ClaimText(ic.set, c, ic.now) + ", td reclaim " + c.Issue + " takes it"
	}
	return board.ClaimText(ic.set, c, ic.now)
}
