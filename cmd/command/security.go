package command

import (
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/urfave/cli/v2"
)

// SecurityOptions are td security's inputs, as parsed from the command
// line (td stats security too).
type SecurityOptions struct {
	// Kind is --kind: only events of this kind ("" for all).
	Kind string
}

// securityCommand is td security; td stats security is the same command
// under another name. runF, when not nil, replaces runSecurity.
func (r *runner) securityCommand(runF func(*SecurityOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "security",
		Usage: "list security events: policy exceptions and flag changes",
		Description: `Lists .todos/security_events.jsonl: creator-approval and self-close
exceptions, policy flag changes, operators added and removed, and
provenance conflicts (the committed
history and the frontmatter disagreeing about who created an issue).

Examples:
   td security
   td security --kind creator_approval_exception --json
   td stats security`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "kind", Usage: "only events of this kind (" + strings.Join(securityKinds(), ", ") + ")"}},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &SecurityOptions{Kind: c.String("kind")}
			if o.Kind != "" && !slices.Contains(securityKinds(), o.Kind) {
				return usagef("unknown security event kind %q; known kinds: %s", o.Kind, strings.Join(securityKinds(), ", "))
			}
			if runF != nil {
				return runF(o)
			}
			return r.runSecurity(o)
		},
	}
}

// runSecurity lists the security events of the kind asked for, then
// counts them.
func (r *runner) runSecurity(o *SecurityOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	events, err := s.SecurityEvents()
	if err != nil {
		return err
	}
	var shown []audit.SecurityEvent
	counts := map[string]int{}
	for _, e := range events {
		if o.Kind != "" && e.Kind != o.Kind {
			continue
		}
		shown = append(shown, e)
		counts[e.Kind]++
	}
	return r.st.export(func() any {
		return map[string]any{"events": append([]audit.SecurityEvent{}, shown...), "counts": counts}
	}, func() error {
		if len(shown) == 0 {
			r.st.printf("No security events.\n")
			return nil
		}
		for _, e := range shown {
			issue := e.IssueID
			if issue == "" {
				issue = "-"
			}
			agent := e.Agent
			if agent == "" {
				agent = "operator"
			}
			r.st.printf("%s  %-28s %-10s %s (%s)  %s\n", jsonTime(e.TS), e.Kind, issue, e.SessionID, agent, e.Reason)
		}
		if o.Kind != "" {
			r.st.printf("\n%d %s %s.\n", len(shown), o.Kind, domain.Plural(len(shown), "event", "events"))
			return nil
		}
		ca, sc, oc := counts[audit.KindCreatorApproval], counts[audit.KindSelfClose], counts[audit.KindOpenCriteriaOverride]
		r.st.printf("\n%d creator-approval, %d self-close %s", ca, sc, domain.Plural(sc, "exception", "exceptions"))
		if oc > 0 {
			r.st.printf(", %d open-criteria %s", oc, domain.Plural(oc, "override", "overrides"))
		}
		r.st.printf("; %d %s in all.\n", len(shown), domain.Plural(len(shown), "event", "events"))
		return nil
	})
}

// securityKinds are the kinds of security event td writes, in the order
// help lists them.
func securityKinds() []string {
	return []string{audit.KindCreatorApproval, audit.KindSelfClose, audit.KindOpenCriteriaOverride, audit.KindFeatureFlag, audit.KindOperatorAdded, audit.KindOperatorRemoved, audit.KindProvenanceConflict, audit.KindClaimReclaimed}
}
