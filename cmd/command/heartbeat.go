package command

import (
	"github.com/tdproject/td/repo/claims"
	"github.com/urfave/cli/v2"
)

// HeartbeatOptions are td heartbeat's inputs, as parsed from the command
// line.
type HeartbeatOptions struct {
	// Session is --session: the session whose claims are renewed ("" for
	// the default).
	Session string
	// Issues are the issues whose claims are renewed, as typed; none
	// renews every claim the session holds.
	Issues []string
}

// heartbeatCommand is td heartbeat. runF, when not nil, replaces
// runHeartbeat.
func (r *runner) heartbeatCommand(runF func(*HeartbeatOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "heartbeat",
		Usage:     "renew the leases of your claims",
		ArgsUsage: "[ID...]",
		Description: `A claim's lease runs for claims.ttl (default 2h) from its last renewal;
td heartbeat renews the session's claims on the issues named, or all of
them. Harness hooks run it as a session works (td help claims).

Examples:
   td heartbeat
   td heartbeat td-k3x9qa --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, -1, "[ID...]")
			if err != nil {
				return err
			}
			o := &HeartbeatOptions{Session: c.String("session"), Issues: a}
			if runF != nil {
				return runF(o)
			}
			return r.runHeartbeat(o)
		},
	}
}

// runHeartbeat renews the claims and reports each new expiry.
func (r *runner) runHeartbeat(o *HeartbeatOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	renewed, err := claims.Heartbeat(s, se, o.Issues)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		out := []*claimJSON{}
		for _, c := range renewed {
			out = append(out, toClaimJSON(c, false))
		}
		return map[string]any{"session": se.ID, "claims": out}
	}, func() error {
		if len(renewed) == 0 {
			r.st.printf("%s holds no claims; td start ID claims an issue.\n", se.ID)
			return nil
		}
		for _, c := range renewed {
			r.st.printf("Renewed the claim on %s until %s.\n", c.Issue, jsonTime(c.Expires))
		}
		return nil
	})
}
