package command

import (
	"fmt"

	"github.com/tdproject/td/repo/sessions"
)

// stepText is the sentence a session's context shows for a next step:
// what to do, and the td command that does it.
func stepText(st sessions.Step) string {
	switch st.Kind {
	case sessions.StepSubagentTask:
		return "Do the task your root agent gave you; propose todos with td todo propose --items ..."
	case sessions.StepBindOrSend:
		return "Bind an issue with td session bind ID (td ready lists the open ones), or send an agent to one with td send ID"
	case sessions.StepAskForIssue:
		return "Ask the operator to bind an issue (td session bind ID), or file your work as an issue and bind to it with td promote TITLE"
	case sessions.StepNothingLeft:
		return fmt.Sprintf("Nothing is left on %s: td session unbind, and ask for the next issue", st.Issue)
	case sessions.StepAwaitReview:
		return fmt.Sprintf("Wait for the review of %s (td show %s shows its status)", st.Issue, st.Issue)
	case sessions.StepDecideProposals:
		if st.Count == 1 {
			return "A proposal from subagents waits: td todo view shows them, td todo accept or reject decides"
		}
		return fmt.Sprintf("%d proposals from subagents wait: td todo view shows them, td todo accept or reject decides", st.Count)
	case sessions.StepStart:
		return fmt.Sprintf("Start the issue: td start %s", st.Issue)
	case sessions.StepContinue:
		return fmt.Sprintf("Continue %q; td todo done %q when it is finished", st.Todo, st.Todo)
	case sessions.StepPlan:
		return "Plan the work: td todo set \"first step\" \"second step\" (phases with --phase)"
	case sessions.StepRequestReview:
		return fmt.Sprintf("Every criterion is done: ask for sign-off with td review %s", st.Issue)
	case sessions.StepClaimCriteria:
		return "Check the open acceptance criteria and claim each with td todo done TEXT once it holds"
	case sessions.StepUnblock:
		return "Every open todo is blocked: td todo unblock TEXT when one can go on, or ask the operator"
	case sessions.StepAskForCriteria:
		return "The issue has no acceptance criteria: ask the operator what done means (td todo add --kind criterion TEXT proposes one)"
	}
	return string(st.Kind)
}

// stepTexts renders the next steps, in order.
func stepTexts(steps []sessions.Step) []string {
	out := make([]string, len(steps))
	for i, st := range steps {
		out[i] = stepText(st)
	}
	return out
}
