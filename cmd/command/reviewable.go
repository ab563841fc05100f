package command

import (
	"fmt"
	"github.com/tdproject/td/repo"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// ReviewableOptions are td reviewable's inputs, as parsed from the
// command line.
type ReviewableOptions struct {
	// Session is --session: whose review to list ("" for the default).
	Session string
	// All is --all: every issue in review, with why you may not approve
	// the ones you may not.
	All bool
}

// reviewableCommand is td reviewable. runF, when not nil, replaces
// runReviewable.
func (r *runner) reviewableCommand(runF func(*ReviewableOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "reviewable",
		Usage: "issues in review that you may approve under the review policy",
		Description: `The same filter as td list --reviewable and the review section of td status.
Issues only the creator exception lets you approve are marked: approve them
with --reason, which is audited. --all lists every issue in review and, for
each one you may not approve, the policy's reason (--json: in full).

Examples:
   td reviewable
   td reviewable --all
   TD_FEATURE_BALANCED_REVIEW_POLICY=false td reviewable --json`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every issue in review, with why you may not approve the others"}},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &ReviewableOptions{Session: c.String("session"), All: c.Bool("all")}
			if runF != nil {
				return runF(o)
			}
			return r.runReviewable(o)
		},
	}
}

// runReviewable lists the issues in review the session may approve.
func (r *runner) runReviewable(o *ReviewableOptions) error {
	s, se, err := r.readSession(o.Session)
	if err != nil {
		return err
	}
	// One pass of the policy over every issue in review: the listing, and
	// how many the session may not approve, to point at --all.
	all, perrs, err := issues.ReviewAll(s, se)
	if err != nil {
		return err
	}
	list, refused := all, 0
	if !o.All {
		list = nil
		for _, ri := range all {
			if ri.Refusal == "" {
				list = append(list, ri)
			}
		}
		refused = len(all) - len(list)
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	return r.st.export(func() any { return toReviewableJSON(s, list) }, func() error {
		if len(list) == 0 && o.All {
			r.st.printf("Nothing is in review.\n")
			return nil
		}
		if len(list) == 0 {
			r.st.printf("Nothing awaits your review.\n")
			if refused > 0 {
				r.st.printf("%d %s in review %s not yours to approve: td reviewable --all says why.\n", refused, domain.Plural(refused, "issue", "issues"), domain.Plural(refused, "is", "are"))
			}
			return nil
		}
		r.printReviewable(list, "")
		return nil
	})
}

type reviewableJSON struct {
	issueJSON
	NeedsReason bool `json:"needs_reason"`
	// NeedsOverride: acceptance criteria are open, so approve needs
	// --override-open-criteria (an operator's).
	NeedsOverride bool `json:"needs_override"`
	// Refusal is why you may not approve it (td reviewable --all only).
	Refusal string `json:"refusal,omitempty"`
}

func toReviewableJSON(s *repo.Store, list []issues.ReviewableIssue) []reviewableJSON {
	all := make([]*repo.Issue, len(list))
	for i, ri := range list {
		all[i] = ri.Issue
	}
	s.FillUpdated(all)
	out := []reviewableJSON{}
	for _, ri := range list {
		out = append(out, reviewableJSON{issueJSON: toIssueJSON(ri.Issue), NeedsReason: ri.NeedsReason, NeedsOverride: ri.NeedsOverride, Refusal: ri.Refusal})
	}
	return out
}

// printReviewable prints issues in review one a line, each line
// starting with indent.
func (r *runner) printReviewable(list []issues.ReviewableIssue, indent string) {
	// One write for the whole list: a thousand issues in review would
	// otherwise cost thousands of write calls.
	var b strings.Builder
	for _, ri := range list {
		is := ri.Issue
		fmt.Fprintf(&b, "%s%s  %s  %s", indent, r.st.paint(ansiBold, is.ID), is.Priority, safe(is.Title))
		switch {
		case ri.NeedsReason && ri.NeedsOverride:
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiYellow, "(you created it, and acceptance criteria are open: approve with --reason and --override-open-criteria)"))
		case ri.NeedsReason:
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiYellow, "(you created it: approve with --reason)"))
		case ri.NeedsOverride:
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiYellow, "(acceptance criteria are open: finish them, or approve with --override-open-criteria)"))
		}
		if ri.Refusal != "" {
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiDim, "(not yours to approve: "+shortRefusal(ri.Refusal)+")"))
		}
		b.WriteByte('\n')
	}
	r.st.printf("%s", b.String())
}

// shortRefusal is the policy's refusal up to its first "; ": the fact
// (who implements it, who created it), without the advice that follows,
// which td approve gives in full.
func shortRefusal(s string) string {
	short, _, _ := strings.Cut(s, "; ")
	return short
}
