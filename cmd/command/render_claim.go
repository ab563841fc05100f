package command

import (
	"github.com/tdproject/td/policy/domain"
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
