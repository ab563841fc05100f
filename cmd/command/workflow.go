package command

import (
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// The workflow verbs td start, unstart, review, approve, reject, reopen,
// block and unblock are one table: each takes an issue and a reason (td
// review also --force), runs one step of the repo package and reports
// the transition the same way, so they share TransitionOptions and
// runTransition. td close asks about open children and has flags of its
// own: it is close.go.

// TransitionOptions are the inputs of a workflow verb, as parsed from the
// command line.
type TransitionOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is the issue to move, as typed (an ID or a prefix).
	Issue string
	// Reason is --reason ("" when not given).
	Reason string
	// Force is td review --force: submit with open criteria.
	Force bool
	// OverrideOpenCriteria is td approve --override-open-criteria: an
	// operator's audited reason to approve while criteria are open.
	OverrideOpenCriteria string
}

// transitionFunc is a workflow step of the repo package, as a method
// expression: (*repo.Store).Approve, for example.
type transitionFunc func(s *repo.Store, se *repo.Session, id string, o issues.TransitionOptions) (*issues.TransitionResult, error)

// withoutOptions adapts a step that takes no options (start, unstart).
func withoutOptions(f func(*repo.Store, *repo.Session, string) (*issues.TransitionResult, error)) transitionFunc {
	return func(s *repo.Store, se *repo.Session, id string, _ issues.TransitionOptions) (*issues.TransitionResult, error) {
		return f(s, se, id)
	}
}

// workflowStep describes one workflow verb: its help, the word its report
// starts with, its flags and its repo step.
type workflowStep struct {
	name, usage, desc, done string
	flags                   []cli.Flag
	run                     transitionFunc
	// reasonWords lets the reason follow the ID as words (td block ID
	// waiting for the sandbox), as well as with --reason.
	reasonWords bool
}

func reasonFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "reason", Aliases: []string{"m"}, Usage: usage}
}

// workflowSteps are the workflow verbs but close, in the order help lists
// them.
func workflowSteps() []workflowStep {
	return []workflowStep{startStep(), unstartStep(), reviewStep(), approveStep(), rejectStep(), reopenStep(), blockStep(), unblockStep()}
}

// workflowCommands are the workflow verbs, td close among them, in the
// order help lists them.
func (r *runner) workflowCommands() []*cli.Command {
	var cmds []*cli.Command
	for _, st := range workflowSteps() {
		cmds = append(cmds, r.transitionCommand(st, nil))
		if st.name == "reject" {
			cmds = append(cmds, r.closeCommand(nil))
		}
	}
	return cmds
}

// transitionCommand is the workflow verb st. runF, when not nil, replaces
// runTransition.
func (r *runner) transitionCommand(st workflowStep, runF func(*TransitionOptions) error) *cli.Command {
	return &cli.Command{
		Name: st.name, Usage: st.usage, ArgsUsage: argsUsage(st), Description: st.desc, Flags: st.flags,
		Action: func(c *cli.Context) error {
			max, usage := 1, "ID"
			if st.reasonWords {
				max, usage = -1, "ID [REASON...]"
			}
			a, err := args(c, 1, max, usage)
			if err != nil {
				return err
			}
			reason := c.String("reason")
			if words := strings.Join(a[1:], " "); words != "" {
				if reason != "" {
					return usagef("give the reason as words or with --reason, not both")
				}
				reason = words
			}
			o := &TransitionOptions{Session: c.String("session"), Issue: a[0], Reason: reason, Force: c.Bool("force"),
				OverrideOpenCriteria: c.String("override-open-criteria")}
			if runF != nil {
				return runF(o)
			}
			return r.runTransition(st, o)
		},
	}
}

// runTransition runs the step and reports the transition; a refusal that
// recorded security events names them on stderr.
func (r *runner) runTransition(st workflowStep, o *TransitionOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := st.run(s, se, o.Issue, issues.TransitionOptions{Reason: o.Reason, Force: o.Force, OverrideOpenCriteria: o.OverrideOpenCriteria})
	if err != nil {
		r.warnSecurity(res)
		return err
	}
	return r.printTransition(st.name, st.done, res)
}

// warnSecurity names on stderr the security events a refused step
// recorded (res may be nil).
func (r *runner) warnSecurity(res *issues.TransitionResult) {
	if res == nil {
		return
	}
	for _, ev := range res.Security {
		r.st.warnf("security event %s recorded for %s: %s", ev.Kind, ev.IssueID, ev.Reason)
	}
}

type decisionJSON struct {
	Allowed            bool   `json:"allowed"`
	CreatorException   bool   `json:"creator_exception"`
	SelfCloseException bool   `json:"self_close_exception"`
	ReasonRequired     bool   `json:"reason_required"`
	Refusal            string `json:"refusal,omitempty"`
}

type transitionJSON struct {
	Issue                 issueJSON             `json:"issue"`
	Action                string                `json:"action"`
	From                  domain.Status         `json:"from"`
	To                    domain.Status         `json:"to"`
	Changed               bool                  `json:"changed"`
	Reason                string                `json:"reason,omitempty"`
	OpenCriteria          []string              `json:"open_criteria,omitempty"`
	Decision              *decisionJSON         `json:"decision,omitempty"`
	ClosedAgainstCriteria bool                  `json:"closed_against_criteria"`
	SecurityEvents        []audit.SecurityEvent `json:"security_events"`
	// ReleasedClaim is the stray claim td unstart released on an issue
	// that was not in progress; ReplacedClaim the stale claim td start
	// replaced.
	ReleasedClaim *claimJSON `json:"released_claim,omitempty"`
	ReplacedClaim *claimJSON `json:"replaced_claim,omitempty"`
}

// printTransition reports the workflow verb name, whose sentence starts
// with done.
func (r *runner) printTransition(name, done string, res *issues.TransitionResult) error {
	is := res.Issue
	return r.st.export(func() any {
		out := transitionJSON{Issue: toIssueJSON(is), Action: name, From: res.From, To: is.Status, Changed: !res.Unchanged, Reason: res.Reason,
			OpenCriteria: res.OpenCriteria, ClosedAgainstCriteria: res.ClosedAgainstCriteria, SecurityEvents: []audit.SecurityEvent{}}
		if d := res.Decision; d != nil {
			out.Decision = &decisionJSON{Allowed: d.Allowed, CreatorException: d.CreatorException,
				SelfCloseException: d.SelfCloseException, ReasonRequired: d.ReasonRequired, Refusal: d.Refusal}
		}
		out.SecurityEvents = append(out.SecurityEvents, res.Security...)
		now := time.Now
		if clock, err := r.now(); err == nil {
			now = clock
		}
		if c := res.ReleasedClaim; c != nil && c.Session != "" {
			out.ReleasedClaim = toClaimJSON(c, c.Expired(now()))
		}
		if c := res.StaleClaim; c != nil {
			out.ReplacedClaim = toClaimJSON(c, c.Expired(now()))
		}
		return out
	}, func() error {
		if c := res.ReleasedClaim; c != nil {
			if c.Session == "" {
				r.st.printf("Released the claim on %s, whose record td cannot read; %s is %s, so nothing else changed.\n", is.ID, is.ID, r.st.statusColor(is.Status))
				return nil
			}
			r.st.printf("Released the claim of %s (session %s) on %s; %s is %s, so nothing else changed.\n",
				c.Actor.Name(), c.Session, is.ID, is.ID, r.st.statusColor(is.Status))
			return nil
		}
		if res.Unchanged {
			r.st.printf("%s is already %s; nothing to do.\n", is.ID, r.st.statusColor(is.Status))
			return nil
		}
		forReview := ""
		if name == "review" {
			forReview = " for review"
		}
		r.st.printf("%s %s %q%s: %s -> %s", done, is.ID, is.Title, forReview, res.From, r.st.statusColor(is.Status))
		if is.Status == domain.StatusClosed && is.Resolution != "" {
			r.st.printf(" (%s%s)", is.Resolution, duplicateOf(is))
		}
		if name == "start" {
			r.st.printf(", implementer %s", is.Implementer)
		}
		r.st.printf(".\n")
		if c := res.StaleClaim; c != nil {
			r.st.printf("Replaced the stale claim of %s (session %s): %s, after it was taken.\n",
				c.Actor.Name(), c.Session, claims.EndWords(is.ID, res.StaleEnd))
		}
		if len(res.OpenCriteria) > 0 {
			r.st.warnf("submitted with %d open acceptance %s: %s", len(res.OpenCriteria),
				domain.Plural(len(res.OpenCriteria), "criterion", "criteria"), quoteAll(res.OpenCriteria))
		}
		for _, ev := range res.Security {
			switch ev.Kind {
			case audit.KindCreatorApproval:
				r.st.printf("Creator exception: %s created this issue and did not implement it; reason %q recorded in the ledger and .todos/security_events.jsonl.\n", r.who(ev.SessionID), ev.Reason)
			case audit.KindSelfClose:
				r.st.printf("Self-close exception: reason %q recorded in the ledger and .todos/security_events.jsonl.\n", ev.Reason)
			case audit.KindOpenCriteriaOverride:
				r.st.printf("Closed over open acceptance criteria: reason %q recorded in the ledger and .todos/security_events.jsonl.\n", ev.Reason)
			default:
				r.st.printf("Security event %s recorded: %s\n", ev.Kind, ev.Reason)
			}
		}
		if res.ClosedAgainstCriteria {
			r.st.printf("Closed against its acceptance criteria: every criterion is done.\n")
		}
		return nil
	})
}

// argsUsage is a workflow verb's arguments as help shows them.
func argsUsage(st workflowStep) string {
	if st.reasonWords {
		return "ID [REASON...]"
	}
	return "ID"
}
