package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// approveStep is td approve: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func approveStep() workflowStep {
	return workflowStep{name: "approve", usage: "approve an issue in review: it closes as done", done: "Approved",
		desc: `The review policy decides who may approve, people and agents alike (td help
policy). Balanced (default): the implementer and anyone who started or
unstarted the issue may never approve; the issue's creator may, with
--reason, audited in the ledger and .todos/security_events.jsonl; other
involved sessions may not; minor issues may be approved by anyone. Strict:
nobody involved may approve.

An issue with acceptance criteria is signed off by an operator only; a
subagent never approves; with agent_approval off, no agent does.
Nobody approves while acceptance criteria are open: finish them, or, as an
operator, drop what no longer applies (td todo drop --issue ID TEXT) or pass
--override-open-criteria REASON, audited like the exceptions above.

Examples:
   td approve td-k3x9qa
   td approve td-k3x9qa --reason "reviewed the diff and ran the tests"
   td approve td-k3x9qa --override-open-criteria "the export criterion moved to td-m2p7qd"`,
		flags: []cli.Flag{reasonFlag("why you approve (required for the creator exception)"), overrideCriteriaFlag()},
		run:   issues.Approve}
}
