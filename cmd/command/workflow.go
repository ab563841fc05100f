package command

import (
	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

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
	OpenChildren          []childJSON           `json:"open_children,omitempty"`
}

// transitionFunc is a workflow step of the repo package, as a method
// expression: (*repo.Store).Approve, for example.
type transitionFunc func(s *repo.Store, se *repo.Session, id string, o repo.TransitionOptions) (*repo.TransitionResult, error)

// withoutOptions adapts a step that takes no options (start, unstart).
func withoutOptions(f func(*repo.Store, *repo.Session, string) (*repo.TransitionResult, error)) transitionFunc {
	return func(s *repo.Store, se *repo.Session, id string, _ repo.TransitionOptions) (*repo.TransitionResult, error) {
		return f(s, se, id)
	}
}

// workflowStep describes one workflow command.
type workflowStep struct {
	name, usage, desc, done string
	flags                   []cli.Flag
	run                     transitionFunc
}

func reasonFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "reason", Aliases: []string{"m"}, Usage: usage}
}

func (r *runner) workflowCommands() []*cli.Command {
	steps := []workflowStep{
		{name: "start", usage: "start work on an issue: in_progress, you become its implementer", done: "Started",
			desc: "Examples:\n   td start td-k3x9qa",
			run:  withoutOptions((*repo.Store).Start)},
		{name: "unstart", usage: "hand an issue in progress back: open, no implementer", done: "Unstarted",
			desc: "The ledger keeps the record that you started it: the review policy still counts you as involved.\n\nExamples:\n   td unstart td-k3x9qa",
			run:  withoutOptions((*repo.Store).Unstart)},
		{name: "review", usage: "ask for sign-off: in_progress -> in_review", done: "Submitted",
			desc:  "While acceptance criteria are open td refuses; --force asks for sign-off anyway and says which are open.\n\nExamples:\n   td review td-k3x9qa\n   td review td-k3x9qa --force",
			flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "submit even though acceptance criteria are open"}, reasonFlag("a note for the reviewer")},
			run:   (*repo.Store).Review},
		{name: "approve", usage: "approve an issue in review: it closes as done", done: "Approved",
			desc: `The review policy decides who may approve (td feature get balanced_review_policy).
Balanced (default): the implementer and anyone who started or unstarted the
issue may never approve; the issue's creator may, with --reason, audited in
the ledger and .todos/security_events.jsonl; other involved sessions may not;
minor issues may be approved by anyone. Strict: nobody involved may approve.

Examples:
   td approve td-k3x9qa
   td approve td-k3x9qa --reason "reviewed the diff and ran the tests"`,
			flags: []cli.Flag{reasonFlag("why you approve (required for the creator exception)")},
			run:   (*repo.Store).Approve},
		{name: "reject", usage: "send an issue in review back to in_progress, with a reason", done: "Rejected",
			desc:  "Examples:\n   td reject td-k3x9qa --reason \"the refresh path has no test\"",
			flags: []cli.Flag{reasonFlag("what is missing (required)")},
			run:   (*repo.Store).Reject},
		{name: "close", usage: "close an issue outside review (admin close), under the review policy", done: "Closed",
			desc: `An issue nobody started may be closed by anyone. Otherwise the approval rules
apply; a session they refuse may close with --self-close-exception REASON,
which is audited like the creator exception.

--duplicate-of OTHER adds the duplicate_of link and closes with resolution
duplicate, in one step. Children (issues child_of this one) that are not
closed stay open: on a terminal td lists them and asks first, otherwise it
warns on stderr; --yes skips both.

Examples:
   td close td-k3x9qa --resolution wontfix --reason "superseded by the new login"
   td close td-k3x9qa --duplicate-of td-m2p7qd
   td close td-a0b1c2 --yes
   td close td-k3x9qa --self-close-exception "one-line typo fix, nobody else around"`,
			flags: append([]cli.Flag{reasonFlag("why"), &cli.StringFlag{Name: "resolution", Value: "done", Usage: "done or wontfix"},
				&cli.StringFlag{Name: "self-close-exception", Usage: "close your own work anyway, for this `REASON` (audited)"}}, closeFlags()...),
			run: (*repo.Store).Close},
		{name: "reopen", usage: "reopen a closed issue", done: "Reopened",
			desc: "Examples:\n   td reopen td-k3x9qa --reason \"the bug is back on main\"", flags: []cli.Flag{reasonFlag("why")},
			run: (*repo.Store).Reopen},
		{name: "block", usage: "mark an issue blocked", done: "Blocked",
			desc: "Examples:\n   td block td-k3x9qa --reason \"waiting for the provider's sandbox\"", flags: []cli.Flag{reasonFlag("what it waits for")},
			run: (*repo.Store).Block},
		{name: "unblock", usage: "mark a blocked issue open again", done: "Unblocked",
			desc: "Examples:\n   td unblock td-k3x9qa", flags: []cli.Flag{reasonFlag("what changed")},
			run: (*repo.Store).Unblock},
	}
	var cmds []*cli.Command
	for _, st := range steps {
		st := st
		cmds = append(cmds, &cli.Command{
			Name: st.name, Usage: st.usage, ArgsUsage: "ID", Description: st.desc, Flags: st.flags,
			Action: func(c *cli.Context) error {
				a, s, se, err := r.actorArgs(c, 1, 1, "ID")
				if err != nil {
					return err
				}
				o := repo.TransitionOptions{Reason: c.String("reason"), Force: c.Bool("force"),
					SelfCloseException: c.String("self-close-exception"), Resolution: c.String("resolution")}
				run, children := st.run, []*repo.Issue(nil)
				if st.name == "close" {
					if run, children, err = r.prepareClose(c, s, se, a[0]); err != nil {
						return err
					}
				}
				res, err := run(s, se, a[0], o)
				if err != nil {
					if res != nil {
						for _, ev := range res.Security {
							r.st.warnf("security event %s recorded for %s: %s", ev.Kind, ev.IssueID, ev.Reason)
						}
					}
					return err
				}
				return r.printTransition(st, res, children)
			},
		})
	}
	return cmds
}

// printTransition reports a workflow step; children are the open
// children a close left open, for the warning (or the JSON) that names them.
func (r *runner) printTransition(st workflowStep, res *repo.TransitionResult, children []*repo.Issue) error {
	is := res.Issue
	if r.st.json {
		out := transitionJSON{Issue: toIssueJSON(is), Action: st.name, From: res.From, To: is.Status, Changed: !res.Unchanged, Reason: res.Reason,
			OpenCriteria: res.OpenCriteria, ClosedAgainstCriteria: res.ClosedAgainstCriteria, SecurityEvents: []audit.SecurityEvent{},
			OpenChildren: toChildrenJSON(children)}
		if d := res.Decision; d != nil {
			out.Decision = &decisionJSON{Allowed: d.Allowed, CreatorException: d.CreatorException,
				SelfCloseException: d.SelfCloseException, ReasonRequired: d.ReasonRequired, Refusal: d.Refusal}
		}
		out.SecurityEvents = append(out.SecurityEvents, res.Security...)
		return r.st.emitJSON(out)
	}
	if res.Unchanged {
		r.st.printf("%s is already %s; nothing to do.\n", is.ID, r.st.statusColor(is.Status))
		return nil
	}
	forReview := ""
	if st.name == "review" {
		forReview = " for review"
	}
	r.st.printf("%s %s %q%s: %s -> %s", st.done, is.ID, is.Title, forReview, res.From, r.st.statusColor(is.Status))
	if is.Status == domain.StatusClosed && is.Resolution != "" {
		r.st.printf(" (%s%s)", is.Resolution, duplicateOf(is))
	}
	if st.name == "start" {
		r.st.printf(", implementer %s", is.Implementer)
	}
	r.st.printf(".\n")
	if len(res.OpenCriteria) > 0 {
		r.st.warnf("submitted with %d open acceptance %s: %s", len(res.OpenCriteria),
			pluralWord(len(res.OpenCriteria), "criterion", "criteria"), quoteAll(res.OpenCriteria))
	}
	for _, ev := range res.Security {
		switch ev.Kind {
		case audit.KindCreatorApproval:
			r.st.printf("Creator exception: %s created this issue and did not implement it; reason %q recorded in the ledger and .todos/security_events.jsonl.\n", ev.SessionID, ev.Reason)
		case audit.KindSelfClose:
			r.st.printf("Self-close exception: reason %q recorded in the ledger and .todos/security_events.jsonl.\n", ev.Reason)
		default:
			r.st.printf("Security event %s recorded: %s\n", ev.Kind, ev.Reason)
		}
	}
	if res.ClosedAgainstCriteria {
		r.st.printf("Closed against its acceptance criteria: every criterion is done.\n")
	}
	r.warnOpenChildren(is.ID, children)
	return nil
}

// newCommands are the todo, workflow, review and audit commands, in the
// order help lists them.
func (r *runner) newCommands() []*cli.Command {
	return append([]*cli.Command{r.todoCommand(), r.fmtCommand(nil), r.statusCommand(nil)}, append(r.workflowCommands(),
		r.reviewableCommand(nil), r.featureCommand(), r.securityCommand(), r.statsCommand(), r.auditCommand())...)
}
