package policy

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// TodoChange decides whether a session with role may move a todo of kind from
// one status to another; from is "" when the todo is being added. Steps are
// anyone's; anyone may add a criterion and a member or an agent may claim
// one done, but only an operator may drop a criterion or reopen a completed
// or dropped one. The caller checks MayMutate first: subagents change
// nothing.
func TodoChange(role domain.Role, kind domain.TodoKind, from, to domain.TodoStatus) error {
	if !role.Valid() {
		return fmt.Errorf("unknown session role %q: want operator, member or agent", role)
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
	// A member or an agent on a criterion.
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

// blockedNotePrefix starts the note td todo block --reason writes.
const blockedNotePrefix = "blocked:"

// BlockedNote is the note td todo block --reason writes under the item:
// "blocked: REASON".
func BlockedNote(reason string) string { return blockedNotePrefix + " " + reason }

// IsBlockedNote reports whether a note says why its todo is blocked: it
// starts with "blocked:", in any case, as td writes it and as a person
// would by hand. Such a note describes a status, not something learned,
// so it goes when the todo stops being blocked.
func IsBlockedNote(note string) bool {
	return len(note) >= len(blockedNotePrefix) && strings.EqualFold(note[:len(blockedNotePrefix)], blockedNotePrefix)
}

// ClearsBlockedNotes reports whether moving a todo to status to removes
// its "blocked: …" notes: every status but blocked does, since the reason
// no longer holds once the todo is done, dropped, pending or started.
func ClearsBlockedNotes(to domain.TodoStatus) bool { return to != domain.TodoBlocked }
