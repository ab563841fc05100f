package command

import (
	"github.com/tdproject/td/repo/issues"
)

// startStep is td start: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func startStep() workflowStep {
	return workflowStep{name: "start", usage: "start work on an issue: in_progress, you become its implementer", done: "Started",
		desc: "Examples:\n   td start td-k3x9qa",
		run:  withoutOptions(issues.Start)}
}
