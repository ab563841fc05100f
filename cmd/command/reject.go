package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// rejectStep is td reject: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func rejectStep() workflowStep {
	return workflowStep{name: "reject", usage: "send an issue in review back to in_progress, with a reason", done: "Rejected",
		desc:  "Examples:\n   td reject td-k3x9qa --reason \"the refresh path has no test\"",
		flags: []cli.Flag{reasonFlag("what is missing (required)")},
		run:   issues.Reject}
}
