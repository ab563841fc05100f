package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// ReviewableOptions are td reviewable's inputs, as parsed from the
// command line.
type ReviewableOptions struct {
	// Session is --session: whose review to list ("" for the default).
	Session string
}

// reviewableCommand is td reviewable. runF, when not nil, replaces
// runReviewable.
func (r *runner) reviewableCommand(runF func(*ReviewableOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "reviewable",
		Usage: "issues in review that you may approve under the review policy",
		Description: `The same filter as td list --reviewable and the review section of td status.
Issues only the creator exception lets you approve are marked: approve them
with --reason, which is audited.

Examples:
   td reviewable
   TD_FEATURE_BALANCED_REVIEW_POLICY=false td reviewable --json`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &ReviewableOptions{Session: c.String("session")}
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
	list, perrs, err := issues.Reviewable(s, se)
	if err != nil {
		return err
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	return r.st.export(func() any { return toReviewableJSON(list) }, func() error {
		if len(list) == 0 {
			r.st.printf("Nothing awaits your review.\n")
			return nil
		}
		r.printReviewable(list, "")
		return nil
	})
}

type reviewableJSON struct {
	issueJSON
	NeedsReason bool `json:"needs_reason"`
}

func toReviewableJSON(list []issues.ReviewableIssue) []reviewableJSON {
	out := []reviewableJSON{}
	for _, ri := range list {
		out = append(out, reviewableJSON{issueJSON: toIssueJSON(ri.Issue), NeedsReason: ri.NeedsReason})
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
		if ri.NeedsReason {
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiYellow, "(you created it: approve with --reason)"))
		}
		b.WriteByte('\n')
	}
	r.st.printf("%s", b.String())
}
