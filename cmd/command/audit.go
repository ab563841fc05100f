package command

import (
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo/review"
	"github.com/urfave/cli/v2"
)

func (r *runner) securityAction(c *cli.Context) error {
	_, s, err := r.openArgs(c, 0, 0, "")
	if err != nil {
		return err
	}
	events, err := s.SecurityEvents()
	if err != nil {
		return err
	}
	kind := c.String("kind")
	if kind != "" && !slices.Contains(securityKinds(), kind) {
		return usagef("unknown security event kind %q; known kinds: %s", kind, strings.Join(securityKinds(), ", "))
	}
	var shown []audit.SecurityEvent
	counts := map[string]int{}
	for _, e := range events {
		if kind != "" && e.Kind != kind {
			continue
		}
		shown = append(shown, e)
		counts[e.Kind]++
	}
	if r.st.json {
		out := append([]audit.SecurityEvent{}, shown...)
		return r.st.emitJSON(map[string]any{"events": out, "counts": counts})
	}
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
	if kind != "" {
		r.st.printf("\n%d %s %s.\n", len(shown), kind, pluralWord(len(shown), "event", "events"))
		return nil
	}
	ca, sc := counts[audit.KindCreatorApproval], counts[audit.KindSelfClose]
	r.st.printf("\n%d creator-approval, %d self-close %s; %d %s in all.\n",
		ca, sc, pluralWord(sc, "exception", "exceptions"), len(shown), pluralWord(len(shown), "event", "events"))
	return nil
}

// securityKinds are the kinds of security event td writes, in the order
// help lists them.
func securityKinds() []string {
	return []string{audit.KindCreatorApproval, audit.KindSelfClose, audit.KindFeatureFlag, audit.KindProvenanceConflict}
}

var securityFlags = []cli.Flag{&cli.StringFlag{Name: "kind", Usage: "only events of this kind (" + strings.Join(securityKinds(), ", ") + ")"}}

const securityDesc = `Lists .todos/security_events.jsonl: creator-approval and self-close
exceptions, policy flag changes, and provenance conflicts (the committed
history and the frontmatter disagreeing about who created an issue).

Examples:
   td security
   td security --kind creator_approval_exception --json
   td stats security`

func (r *runner) securityCommand() *cli.Command {
	return &cli.Command{Name: "security", Usage: "list security events: policy exceptions and flag changes",
		Description: securityDesc, Flags: securityFlags, Action: r.securityAction}
}

func (r *runner) statsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "statistics",
		Subcommands: []*cli.Command{
			{Name: "security", Usage: "security events (same as td security)", Description: securityDesc, Flags: securityFlags, Action: r.securityAction},
		},
	}
}

func (r *runner) auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "verify td's audit records",
		Subcommands: []*cli.Command{
			{
				Name:  "verify",
				Usage: "check the hash chain of .todos/security_events.jsonl",
				Description: `Every line's hash must match its content, every prev must name a line in the
file (or be empty for the first), no hash may repeat, and every line present
at the base revision (HEAD by default) must still be there unaltered. A file
that a union merge of two branches produced verifies clean. Exit 1 on any
problem, each printed as path:line: message.

Examples:
   td audit verify
   td audit verify --base main --json`,
				Flags: []cli.Flag{&cli.StringFlag{Name: "base", Usage: "compare with the file at this revision (default HEAD)"}},
				Action: func(c *cli.Context) error {
					_, s, err := r.openArgs(c, 0, 0, "[--base REV]")
					if err != nil {
						return err
					}
					rep, err := review.VerifySecurity(s, c.String("base"))
					if err != nil {
						return err
					}
					if r.st.json {
						probs := []map[string]any{}
						for _, p := range rep.Problems {
							probs = append(probs, map[string]any{"line": p.Line, "message": p.Msg})
						}
						if err := r.st.emitJSON(map[string]any{"path": rep.Path, "events": rep.Events, "base": rep.Base, "ok": len(rep.Problems) == 0, "problems": probs}); err != nil {
							return err
						}
					} else {
						for _, p := range rep.Problems {
							if p.Line > 0 {
								r.st.printf("%s:%d: %s\n", rep.Path, p.Line, p.Msg)
							} else {
								r.st.printf("%s: %s\n", rep.Path, p.Msg)
							}
						}
					}
					if len(rep.Problems) > 0 {
						return silentFailure{}
					}
					if !r.st.json {
						against := "no base revision"
						if rep.Base != "" {
							against = "checked against " + rep.Base
						}
						r.st.printf("%s: %d %s, chain intact (%s).\n", rep.Path, rep.Events, pluralWord(rep.Events, "event", "events"), against)
					}
					return nil
				},
			},
		},
	}
}
