package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// ReclaimOptions are td reclaim's inputs, as parsed from the command line.
type ReclaimOptions struct {
	// Session is --session: the session taking the claim ("" for the
	// default).
	Session string
	// Issue is the issue whose ended claim is taken over, as typed.
	Issue string
	// Reason is --reason: why, for the security event (required).
	Reason string
}

// reclaimCommand is td reclaim. runF, when not nil, replaces runReclaim.
func (r *runner) reclaimCommand(runF func(*ReclaimOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "reclaim",
		Usage:     "take over an issue whose claim's lease has ended, and its work (audited)",
		ArgsUsage: "ID --reason TEXT",
		Description: `Only an ended lease is taken: a live one belongs to its holder until it
hands the issue back (td unstart) or stops renewing it, and a stale one
(the issue was closed, approved, reopened or handed back after it was
taken) is nobody's: td start takes the issue. The take-over is a
claim_reclaimed security event naming the previous holder and your
reason, which is required. An issue in progress, in review or blocked
here passes to you: you become its implementer and assignee (a reclaimed
ledger entry), and a session bound to no issue is bound to it, so td
todo, td review and td unstart are yours. An open issue is yours to td
start.

Examples:
   td reclaim td-k3x9qa --reason "the agent's machine is gone"`,
		Flags: []cli.Flag{reasonFlag("why you take it over, for the security event (required)")},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID --reason TEXT")
			if err != nil {
				return err
			}
			if strings.TrimSpace(c.String("reason")) == "" {
				return usagef("td reclaim needs --reason: why you take the issue over, for the security event (td reclaim %s --reason \"the agent's machine is gone\")", a[0])
			}
			o := &ReclaimOptions{Session: c.String("session"), Issue: a[0], Reason: c.String("reason")}
			if runF != nil {
				return runF(o)
			}
			return r.runReclaim(o)
		},
	}
}

// runReclaim takes the claim over and reports whose it was.
func (r *runner) runReclaim(o *ReclaimOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := issues.Reclaim(s, se, o.Issue, o.Reason)
	if err != nil {
		return err
	}
	cs := claims.Here(s)
	id := res.Claim.Issue
	return r.st.export(func() any {
		out := map[string]any{"claim": toClaimJSON(res.Claim, false), "previous": toClaimJSON(res.Previous, true), "security_event": res.Security,
			"implementer": res.TookWork, "bound": res.Bound}
		if res.Issue != nil {
			out["issue"] = toIssueJSON(res.Issue)
		}
		return out
	}, func() error {
		p := res.Previous
		r.st.printf("Reclaimed %s from %s (session %s) %s, whose lease ended at %s; yours until %s.\n",
			id, p.Actor.Name(), p.Session, cs.Where(p), jsonTime(p.Expires), jsonTime(res.Claim.Expires))
		r.st.printf("Security event %s recorded in .todos/security_events.jsonl.\n", res.Security.Kind)
		switch {
		case res.TookWork:
			from := ""
			if res.Implementer != "" {
				from = " (was " + res.Implementer + ")"
			}
			r.st.printf("%s is %s; you are its implementer now%s.\n", id, r.st.statusColor(res.Issue.Status), from)
		case res.Issue != nil && res.Issue.Status == domain.StatusOpen:
			r.st.printf("%s is open here; td start %s starts the work.\n", id, id)
		}
		switch {
		case res.Bound:
			r.st.printf("Bound %s to %s: its todos are your checklist.\n", se.ID, id)
		case res.BoundElsewhere != "":
			r.st.printf("%s stays bound to %s; td session bind %s moves it.\n", se.ID, res.BoundElsewhere, id)
		}
		return nil
	})
}
