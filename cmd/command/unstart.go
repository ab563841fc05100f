package command

import (
	"github.com/tdproject/td/repo/issues"
)

// unstartStep is td unstart: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func unstartStep() workflowStep {
	return workflowStep{name: "unstart", usage: "hand an issue in progress back: open, no implementer", done: "Unstarted",
		desc: "The ledger keeps the record that you started it: the review policy still counts you as involved.\n\nExamples:\n   td unstart td-k3x9qa",
		run:  withoutOptions(issues.Unstart)}
}
