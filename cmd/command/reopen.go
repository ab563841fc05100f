package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// reopenStep is td reopen: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func reopenStep() workflowStep {
	return workflowStep{name: "reopen", usage: "reopen a closed issue", done: "Reopened",
		desc: "Examples:\n   td reopen td-k3x9qa --reason \"the bug is back on main\"", flags: []cli.Flag{reasonFlag("why")},
		run: issues.Reopen}
}
