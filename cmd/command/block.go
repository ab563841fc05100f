package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// blockStep is td block: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func blockStep() workflowStep {
	return workflowStep{name: "block", usage: "mark an issue blocked, saying what it waits for", done: "Blocked",
		desc: "Examples:\n   td block td-k3x9qa waiting for the provider's sandbox\n   td block td-k3x9qa --reason \"waiting for the provider's sandbox\"", flags: []cli.Flag{reasonFlag("what it waits for")},
		run: issues.Block, reasonWords: true}
}
