package policy

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
)

// TodoChange decides whether a session with role may move a todo of kind from
// one status to another; from is "" when the todo is being added. Steps are
// anyone's; anyone may add a criterion and an agent may claim one done, but
// only an operator may drop a criterion or reopen a completed or dropped one.
// The caller checks MayMutate first: subagents change nothing.
func TodoChange(role domain.Role, kind domain.TodoKind, from, to domain.TodoStatus) error {
	if role != domain.RoleOperator && role != domain.RoleAgent {
		return fmt.Errorf("unknown session role %q: want operator or agent", role)
	}
	if !kind.Valid() {
		return fmt.Errorf("unknown todo kind %q: want criterion or step", kind)
	}
	if from != "" && !from.Valid() {
		return fmt.Errorf("unknown todo status %q", from)
	}
	if !to.Valid() {
		return fmt.Errorf("unknown todo status %q", to)
	}
	if kind == domain.KindStep || role == domain.RoleOperator || from == to {
		return nil
	}
	// An agent on a criterion.
	switch {
	case to == domain.TodoAbandoned:
		return refuse("only an operator may drop a criterion, since criteria are the definition of done; ask the operator to drop it")
	case from == domain.TodoCompleted || from == domain.TodoAbandoned:
		return refuse(fmt.Sprintf("only an operator may reopen a criterion that is %s; ask the operator to reopen it", describeStatus(from)))
	}
	return nil
}

func describeStatus(s domain.TodoStatus) string {
	if s == domain.TodoAbandoned {
		return "dropped"
	}
	return string(s)
}

// MayMutate refuses subagent sessions, whose agent path is deeper than one
// segment (primary.subagents.ui): they propose todos to their root (td todo
// propose) instead of changing todos or issues. Operator sessions (empty
// path) and root agents pass.
func MayMutate(agentPath domain.AgentPath) error {
	if agentPath.IsSubagent() {
		return refuse(subagentRefusal)
	}
	return nil
}

// subagentRefusal is what a subagent hears when it tries to change todos or
// issues: the way in is a proposal its root agent accepts or rejects.
const subagentRefusal = `subagent sessions cannot change todos or issues; propose todos with td todo propose "first" "second", and the root agent accepts or rejects them`
