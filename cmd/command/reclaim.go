package command

import (
	"github.com/tdproject/td/repo/claims"
	"github.com/urfave/cli/v2"
)

// ReclaimOptions are td reclaim's inputs, as parsed from the command line.
type ReclaimOptions struct {
	// Session is --session: the session taking the claim ("" for the
	// default).
	Session string
	// Issue is the issue whose ended claim is taken over, as typed.
	Issue string
	// Reason is --reason: why, for the security event ("" for none).
	Reason string
}

// reclaimCommand is td reclaim. runF, when not nil, replaces runReclaim.
func (r *runner) reclaimCommand(runF func(*ReclaimOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "reclaim",
		Usage:     "take over an issue's claim whose lease has ended (audited)",
		ArgsUsage: "ID",
		Description: `Only an ended lease is taken: a live one belongs to its holder until it
hands the issue back (td unstart) or stops renewing it. The take-over is
a claim_reclaimed security event naming the previous holder. Then td
start ID works on it.

Examples:
   td reclaim td-k3x9qa --reason "the agent's machine is gone"`,
		Flags: []cli.Flag{reasonFlag("why you take it over, for the security event")},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
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
	res, err := claims.Reclaim(s, se, o.Issue, o.Reason)
	if err != nil {
		return err
	}
	cs := claims.Here(s)
	return r.st.export(func() any {
		return map[string]any{"claim": toClaimJSON(res.Claim, false), "previous": toClaimJSON(res.Previous, true), "security_event": res.Security}
	}, func() error {
		p := res.Previous
		r.st.printf("Reclaimed %s from %s (session %s) %s, whose lease ended at %s; yours until %s.\n",
			res.Claim.Issue, p.Actor.Name(), p.Session, cs.Where(p), jsonTime(p.Expires), jsonTime(res.Claim.Expires))
		r.st.printf("Security event %s recorded in .todos/security_events.jsonl.\n", res.Security.Kind)
		return nil
	})
}
