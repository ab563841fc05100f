package command

import (
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/doctor"
	"github.com/urfave/cli/v2"
)

// SyncOptions are td sync's inputs, as parsed from the command line.
type SyncOptions struct {
	// Remote is the remote to exchange claims with, "" for the current
	// branch's upstream remote or origin.
	Remote string
}

// syncCommand is td sync. runF, when not nil, replaces runSync.
func (r *runner) syncCommand(runF func(*SyncOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange claims with a remote, so two clones cannot hold one issue",
		ArgsUsage: "[REMOTE]",
		Description: `Lists the remote's claims (refs/td/claims/*) and its default branch,
fetching the records and the branch this clone lacks, keeps what changed
on one side only, lets the remote's live claim win where both sides took an
issue, and pushes this clone's claims atomically under leases, so that of
two clones pushing one issue only the first succeeds. A claim made stale
by this work tree's ledger or by the ledger on the remote's default
branch (the issue was closed, approved, reopened or handed back after it
was taken, wherever that ran) is released here and on the remote, never
pushed, and td sync says what ended it. REMOTE defaults to claims.remote,
else origin (td help config). td start, td send, td reclaim and the
commands that release a claim already publish it to that remote at once;
td sync publishes what they could not, and takes what other clones
published. It runs the git program for this network step alone, so your
credentials, ssh config and insteadOf rules apply (td help claims says
why). Offline it changes nothing and says so.

Examples:
   td sync
   td sync upstream --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 1, "[REMOTE]")
			if err != nil {
				return err
			}
			o := &SyncOptions{}
			if len(a) == 1 {
				o.Remote = a[0]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runSync(o)
		},
	}
}

// runSync exchanges the claims and says what moved, issue by issue.
func (r *runner) runSync(o *SyncOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, err := claims.Sync(s, o.Remote)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		r.st.warnf("%s", n)
	}
	now := s.Now()
	cs := claims.Here(s)
	list := func(cl []*domain.Claim) []*claimJSON {
		out := []*claimJSON{}
		for _, c := range cl {
			out = append(out, toClaimJSON(c, c.Expired(now)))
		}
		return out
	}
	return r.st.export(func() any {
		lost := []map[string]any{}
		for _, l := range res.Lost {
			lost = append(lost, map[string]any{"mine": toClaimJSON(l.Mine, l.Mine != nil && l.Mine.Expired(now)), "theirs": toClaimJSON(l.Theirs, l.Theirs.Expired(now))})
		}
		stale := []map[string]any{}
		for _, st := range res.Stale {
			m := map[string]any{"claim": toClaimJSON(st.Claim, st.Claim.Expired(now)), "ended_by": st.End.Action, "ended_at": jsonTime(st.End.TS),
				"here": st.Here, "remote": st.Remote}
			if st.OnBranch {
				m["ended_on"] = res.Remote + "/" + res.Branch
			}
			stale = append(stale, m)
		}
		refused := []map[string]any{}
		for _, rc := range res.Refused {
			refused = append(refused, map[string]any{"claim": toClaimJSON(rc.Claim, rc.Claim.Expired(now)), "here": rc.Here, "remote": rc.Remote})
		}
		return map[string]any{"remote": res.Remote, "branch": res.Branch, "pushed": list(res.Pushed), "released": nonNil(res.Released), "taken": list(res.Adopted),
			"dropped": nonNil(res.Dropped), "lost": lost, "stale": stale, "refused": refused, "claims": res.Claims}
	}, func() error {
		for _, c := range res.Pushed {
			r.st.printf("Pushed the claim on %s to %s.\n", c.Issue, res.Remote)
		}
		for _, id := range res.Released {
			r.st.printf("Released %s on %s.\n", id, res.Remote)
		}
		for _, st := range res.Stale {
			where := "here"
			switch {
			case st.Here && st.Remote:
				where = "here and on " + res.Remote
			case st.Remote:
				where = "on " + res.Remote
			}
			end := claims.EndWords(st.Claim.Issue, st.End)
			if st.OnBranch {
				end += " on " + res.Remote + "/" + res.Branch
			}
			if st.End.TS.Before(st.Claim.Claimed.Truncate(time.Second)) {
				// Closed there before the claim was taken where it was open.
				r.st.printf("Released the claim on %s %s: %s, and %s (session %s) took it where the close had not arrived.\n",
					st.Claim.Issue, where, end, st.Claim.Actor.Name(), st.Claim.Session)
				continue
			}
			r.st.printf("Released the claim on %s %s: %s, after %s (session %s) took it.\n",
				st.Claim.Issue, where, end, st.Claim.Actor.Name(), st.Claim.Session)
		}
		for _, rc := range res.Refused {
			where := "here"
			switch {
			case rc.Here && rc.Remote:
				where = "here and on " + res.Remote
			case rc.Remote:
				where = "on " + res.Remote
			}
			r.st.printf("Released the claim on %s %s: %s (session %s) holds it until %s, beyond the %s lease claims.ttl gives, so it is nobody's.\n",
				rc.Claim.Issue, where, rc.Claim.Actor.Name(), rc.Claim.Session, rc.Claim.Expires.UTC().Format(time.RFC3339), doctor.TTLWords(s.Config.ClaimTTL()))
		}
		for _, c := range res.Adopted {
			r.st.printf("Took %s's claim on %s: %s.\n", res.Remote, c.Issue, claimLine(cs, c, c.Expired(now)))
		}
		for _, id := range res.Dropped {
			r.st.printf("Dropped the claim on %s: %s released it.\n", id, res.Remote)
		}
		for _, l := range res.Lost {
			mine := "yours"
			if l.Mine != nil {
				mine = "yours (session " + l.Mine.Session + ")"
			}
			r.st.printf("Lost %s: %s has it %s; %s is gone. td unstart %s hands back the work here.\n",
				l.Theirs.Issue, res.Remote, strings.TrimPrefix(claimLine(cs, l.Theirs, l.Theirs.Expired(now)), "claimed "), mine, l.Theirs.Issue)
		}
		if !res.Changed() {
			r.st.printf("Claims are in sync with %s: nothing to do (%d %s).\n", res.Remote, res.Claims, domain.Plural(res.Claims, "claim", "claims"))
			return nil
		}
		r.st.printf("Synced claims with %s: %d pushed, %d released, %d taken, %d dropped, %d lost; %d %s here.\n", res.Remote,
			len(res.Pushed), len(res.Released)+len(res.Stale)+len(res.Refused), len(res.Adopted), len(res.Dropped), len(res.Lost), res.Claims, domain.Plural(res.Claims, "claim", "claims"))
		return nil
	})
}

// nonNil makes a nil list an empty one, for JSON.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
