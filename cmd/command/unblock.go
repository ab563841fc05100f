package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// unblockStep is td unblock: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func unblockStep() workflowStep {
	return workflowStep{name: "unblock", usage: "unblock an issue: back to the status it was blocked from", done: "Unblocked",
		desc: "Examples:\n   td unblock td-k3x9qa", flags: []cli.Flag{reasonFlag("what changed")},
		run: issues.Unblock}
}
