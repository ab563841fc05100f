package command

import (
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
)

// reviewStep is td review: its help, its report and its use case. The
// command and its run function are workflow.go's transitionCommand and
// runTransition, which every workflow verb but close shares.
func reviewStep() workflowStep {
	return workflowStep{name: "review", usage: "ask for sign-off: in_progress -> in_review", done: "Submitted",
		desc:  "While acceptance criteria are open td refuses; --force asks for sign-off anyway and says which are open.\n\nExamples:\n   td review td-k3x9qa\n   td review td-k3x9qa --force",
		flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "submit even though acceptance criteria are open"}, reasonFlag("a note for the reviewer")},
		run:   issues.Review}
}
