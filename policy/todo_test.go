package policy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestTodoChange(t *testing.T) {
	const (
		dropRefusal   = "only an operator may drop a criterion, since criteria are the definition of done; ask the operator to drop it"
		reopenDone    = "only an operator may reopen a criterion that is completed; ask the operator to reopen it"
		reopenDropped = "only an operator may reopen a criterion that is dropped; ask the operator to reopen it"
	)
	rows := []struct {
		role     domain.Role
		kind     domain.TodoKind
		from, to domain.TodoStatus
		refusal  string // exact refusal; "" when allowed
		invalid  bool   // bad input rather than a refusal
	}{
		// Anyone may add criteria; an agent adding a dropped one is dropping it.
		{role: domain.RoleAgent, kind: domain.KindCriterion, to: domain.TodoPending},
		{role: domain.RoleOperator, kind: domain.KindCriterion, to: domain.TodoPending},
		{role: domain.RoleAgent, kind: domain.KindCriterion, to: domain.TodoCompleted},
		{role: domain.RoleAgent, kind: domain.KindCriterion, to: domain.TodoAbandoned, refusal: dropRefusal},
		{role: domain.RoleOperator, kind: domain.KindCriterion, to: domain.TodoAbandoned},

		// An agent may work on a criterion and claim it done.
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoCompleted},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoInProgress, to: domain.TodoCompleted},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoBlocked, to: domain.TodoCompleted},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoInProgress},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoInProgress, to: domain.TodoBlocked},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoBlocked, to: domain.TodoPending},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoCompleted},

		// Only an operator drops or reopens one.
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoAbandoned, refusal: dropRefusal},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoAbandoned, refusal: dropRefusal},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoPending, refusal: reopenDone},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoInProgress, refusal: reopenDone},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoAbandoned, to: domain.TodoPending, refusal: reopenDropped},
		{role: domain.RoleAgent, kind: domain.KindCriterion, from: domain.TodoAbandoned, to: domain.TodoCompleted, refusal: reopenDropped},
		{role: domain.RoleOperator, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoAbandoned},
		{role: domain.RoleOperator, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoPending},
		{role: domain.RoleOperator, kind: domain.KindCriterion, from: domain.TodoAbandoned, to: domain.TodoInProgress},

		// A member, a person not listed in operators, is held to them as
		// an agent is: it claims criteria, it does not drop or reopen them.
		{role: domain.RoleMember, kind: domain.KindCriterion, to: domain.TodoPending},
		{role: domain.RoleMember, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoCompleted},
		{role: domain.RoleMember, kind: domain.KindCriterion, from: domain.TodoPending, to: domain.TodoAbandoned, refusal: dropRefusal},
		{role: domain.RoleMember, kind: domain.KindCriterion, from: domain.TodoCompleted, to: domain.TodoPending, refusal: reopenDone},
		{role: domain.RoleMember, kind: domain.KindStep, from: domain.TodoPending, to: domain.TodoAbandoned},

		// Steps are anyone's.
		{role: domain.RoleAgent, kind: domain.KindStep, to: domain.TodoPending},
		{role: domain.RoleAgent, kind: domain.KindStep, from: domain.TodoPending, to: domain.TodoAbandoned},
		{role: domain.RoleAgent, kind: domain.KindStep, from: domain.TodoCompleted, to: domain.TodoPending},
		{role: domain.RoleAgent, kind: domain.KindStep, from: domain.TodoAbandoned, to: domain.TodoInProgress},
		{role: domain.RoleOperator, kind: domain.KindStep, from: domain.TodoBlocked, to: domain.TodoCompleted},

		// Bad input.
		{role: "admin", kind: domain.KindStep, from: domain.TodoPending, to: domain.TodoCompleted, invalid: true},
		{role: domain.RoleAgent, kind: "goal", from: domain.TodoPending, to: domain.TodoCompleted, invalid: true},
		{role: domain.RoleAgent, kind: domain.KindStep, from: "done", to: domain.TodoCompleted, invalid: true},
		{role: domain.RoleAgent, kind: domain.KindStep, from: domain.TodoPending, to: "", invalid: true},
	}
	for _, row := range rows {
		name := fmt.Sprintf("%s %s %s->%s", row.role, row.kind, row.from, row.to)
		t.Run(name, func(t *testing.T) {
			err := TodoChange(row.role, row.kind, row.from, row.to)
			var refusal *RefusalError
			switch {
			case row.invalid:
				if err == nil || errors.As(err, &refusal) {
					t.Fatalf("TodoChange = %v; want an invalid-input error", err)
				}
			case row.refusal == "":
				if err != nil {
					t.Fatalf("TodoChange = %v; want allowed", err)
				}
			default:
				if !errors.As(err, &refusal) || err.Error() != row.refusal {
					t.Fatalf("TodoChange = %v; want refusal %q", err, row.refusal)
				}
			}
		})
	}
}

func TestMayMutate(t *testing.T) {
	const refusal = `subagent sessions cannot change todos or issues; propose todos with td todo propose "first" "second", and the root agent accepts or rejects them`
	rows := []struct {
		path    domain.AgentPath
		refused bool
	}{
		{path: ""},
		{path: "primary"},
		{path: "primary.subagents.ui", refused: true},
		{path: "primary.ui", refused: true},
		{path: "primary.", refused: true},
	}
	for _, row := range rows {
		t.Run(string(row.path), func(t *testing.T) {
			err := MayMutate(row.path)
			var r *RefusalError
			if row.refused != (err != nil) {
				t.Fatalf("MayMutate(%q) = %v; refused want %v", row.path, err, row.refused)
			}
			if row.refused && (!errors.As(err, &r) || err.Error() != refusal) {
				t.Fatalf("MayMutate(%q) = %v; want refusal %q", row.path, err, refusal)
			}
		})
	}
}

func TestBlockedNote(t *testing.T) {
	if got := BlockedNote("waiting for the design tokens"); got != "blocked: waiting for the design tokens" {
		t.Fatalf("BlockedNote = %q", got)
	}
	for note, want := range map[string]bool{
		"blocked: waiting for the design tokens": true,
		"Blocked: by hand":                       true,
		"BLOCKED:x":                              true,
		"blocked:":                               true,
		"blocked":                                false,
		"was blocked: twice":                     false,
		"state parameter must be verified":       false,
		"":                                       false,
		"blocked by the design team":             false,
	} {
		if got := IsBlockedNote(note); got != want {
			t.Errorf("IsBlockedNote(%q) = %v, want %v", note, got, want)
		}
	}
	for _, to := range domain.TodoStatuses() {
		if got, want := ClearsBlockedNotes(to), to != domain.TodoBlocked; got != want {
			t.Errorf("ClearsBlockedNotes(%s) = %v, want %v", to, got, want)
		}
	}
}
