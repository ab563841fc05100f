package policy

import (
	"fmt"

	"github.com/tdproject/td/markdown"
)

// Role is what a session may do: an operator owns the definition of done, an
// agent works towards it.
type Role string

// Session roles. An operator session whose git author is not a listed
// operator is treated as an agent by the caller.
const (
	Operator Role = "operator"
	Agent    Role = "agent"
)

// Todo kinds and statuses are the checklist grammar's: the rules judge the
// values the markdown package reads from an issue file, so they share one
// definition.
const (
	KindCriterion = markdown.KindCriterion
	KindStep      = markdown.KindStep

	StatusPending    = markdown.StatusPending
	StatusInProgress = markdown.StatusInProgress
	StatusCompleted  = markdown.StatusCompleted
	StatusAbandoned  = markdown.StatusAbandoned
	StatusBlocked    = markdown.StatusBlocked
)

func knownStatus(s string) bool {
	switch s {
	case StatusPending, StatusInProgress, StatusCompleted, StatusAbandoned, StatusBlocked:
		return true
	}
	return false
}

// TodoChange decides whether a session with role may move a todo of kind from
// one status to another; from is "" when the todo is being added. Steps are
// anyone's; anyone may add a criterion and an agent may claim one done, but
// only an operator may drop a criterion or reopen a completed or dropped one.
// The caller checks MayMutate first: subagents change nothing.
func TodoChange(role Role, kind, from, to string) error {
	if role != Operator && role != Agent {
		return fmt.Errorf("unknown session role %q: want operator or agent", role)
	}
	if kind != KindCriterion && kind != KindStep {
		return fmt.Errorf("unknown todo kind %q: want criterion or step", kind)
	}
	if from != "" && !knownStatus(from) {
		return fmt.Errorf("unknown todo status %q", from)
	}
	if !knownStatus(to) {
		return fmt.Errorf("unknown todo status %q", to)
	}
	if kind == KindStep || role == Operator || from == to {
		return nil
	}
	// An agent on a criterion.
	switch {
	case to == StatusAbandoned:
		return refuse("only an operator may drop a criterion, since criteria are the definition of done; ask the operator to drop it")
	case from == StatusCompleted || from == StatusAbandoned:
		return refuse(fmt.Sprintf("only an operator may reopen a criterion that is %s; ask the operator to reopen it", describeStatus(from)))
	}
	return nil
}

func describeStatus(s string) string {
	if s == StatusAbandoned {
		return "dropped"
	}
	return s
}

// MayMutate refuses subagent sessions, whose agent path is deeper than one
// segment (primary.subagents.ui): they propose todos to their root (td todo
// propose) instead of changing todos or issues. Operator sessions (empty
// path) and root agents pass.
func MayMutate(agentPath string) error {
	if IsSubagent(agentPath) {
		return refuse(subagentRefusal)
	}
	return nil
}

// subagentRefusal is what a subagent hears when it tries to change todos or
// issues: the way in is a proposal its root agent accepts or rejects.
const subagentRefusal = `subagent sessions cannot change todos or issues; propose todos with td todo propose "first" "second", and the root agent accepts or rejects them`
