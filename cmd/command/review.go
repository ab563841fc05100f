package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/todos"
	"github.com/urfave/cli/v2"
)

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

func (r *runner) reviewableCommand() *cli.Command {
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
			return r.reviewableAction(c)
		},
	}
}

func (r *runner) reviewableAction(c *cli.Context) error {
	s, se, err := r.openActor(c)
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
	if r.st.json {
		return r.st.emitJSON(toReviewableJSON(list))
	}
	if len(list) == 0 {
		r.st.printf("Nothing awaits your review.\n")
		return nil
	}
	r.printReviewable(list, "")
	return nil
}

func (r *runner) printReviewable(list []issues.ReviewableIssue, indent string) {
	// One write for the whole list: a thousand issues in review would
	// otherwise cost thousands of write calls.
	var b strings.Builder
	for _, ri := range list {
		is := ri.Issue
		fmt.Fprintf(&b, "%s%s  %s  %s", indent, r.st.paint(ansiBold, is.ID), is.Priority, is.Title)
		if ri.NeedsReason {
			fmt.Fprintf(&b, "  %s", r.st.paint(ansiYellow, "(you created it: approve with --reason)"))
		}
		b.WriteByte('\n')
	}
	r.st.printf("%s", b.String())
}

func (r *runner) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "who you are, your bound issue, and what awaits your review",
		Description: `Examples:
   td status
   td status --json`,
		Action: func(c *cli.Context) error {
			_, s, se, err := r.actorArgs(c, 0, 0, "")
			if err != nil {
				return err
			}
			bound, err := s.BoundIssue(se)
			if err != nil {
				return err
			}
			var view *todos.TodoResult
			if bound != "" {
				if view, err = todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoView}); err != nil {
					r.st.warnf("bound issue %s: %v", bound, err)
					view = nil
				}
			}
			awaiting, perrs, err := issues.Reviewable(s, se)
			if err != nil {
				return err
			}
			for _, pe := range perrs {
				r.st.warnf("%v", pe)
			}
			submitted, err := issues.Submitted(s, se)
			if err != nil {
				return err
			}
			if r.st.json {
				out := map[string]any{"session": r.sessionJSON(s, se, se.ID), "bound": nil,
					"awaiting_review": toReviewableJSON(awaiting)}
				if view != nil {
					out["bound"] = map[string]any{"issue": toIssueJSON(view.Issue), "summary": markdown.Summarize(view.Items)}
				}
				sub := []issueJSON{}
				for _, is := range submitted {
					sub = append(sub, toIssueJSON(is))
				}
				out["submitted"] = sub
				return r.st.emitJSON(out)
			}
			r.st.printf("Session %s (%s, %s)\n", se.ID, s.EffectiveRole(se), se.Name)
			switch {
			case view != nil:
				r.st.printf("Bound to %s %q (%s): %s\n", view.Issue.ID, view.Issue.Title, view.Issue.Status, summaryLine(markdown.Summarize(view.Items)))
			case bound != "":
				r.st.printf("Bound to %s (unreadable)\n", bound)
			default:
				r.st.printf("Not bound to an issue.\n")
			}
			r.st.printf("\nAwaiting your review (%d):\n", len(awaiting))
			if len(awaiting) == 0 {
				r.st.printf("  nothing\n")
			}
			r.printReviewable(awaiting, "  ")
			r.st.printf("\nSubmitted by you, in review (%d):\n", len(submitted))
			if len(submitted) == 0 {
				r.st.printf("  nothing\n")
			}
			for _, is := range submitted {
				r.st.printf("  %s  %s  %s\n", r.st.paint(ansiBold, is.ID), is.Priority, is.Title)
			}
			return nil
		},
	}
}
