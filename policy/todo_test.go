package policy

import (
	"errors"
	"testing"
)

func TestTodoChange(t *testing.T) {
	const (
		dropRefusal   = "only an operator may drop a criterion, since criteria are the definition of done; ask the operator to drop it"
		reopenDone    = "only an operator may reopen a criterion that is completed; ask the operator to reopen it"
		reopenDropped = "only an operator may reopen a criterion that is dropped; ask the operator to reopen it"
	)
	rows := []struct {
		role     Role
		kind     string
		from, to string
		refusal  string // exact refusal; "" when allowed
		invalid  bool   // bad input rather than a refusal
	}{
		// Anyone may add criteria; an agent adding a dropped one is dropping it.
		{role: Agent, kind: KindCriterion, to: StatusPending},
		{role: Operator, kind: KindCriterion, to: StatusPending},
		{role: Agent, kind: KindCriterion, to: StatusCompleted},
		{role: Agent, kind: KindCriterion, to: StatusAbandoned, refusal: dropRefusal},
		{role: Operator, kind: KindCriterion, to: StatusAbandoned},

		// An agent may work on a criterion and claim it done.
		{role: Agent, kind: KindCriterion, from: StatusPending, to: StatusCompleted},
		{role: Agent, kind: KindCriterion, from: StatusInProgress, to: StatusCompleted},
		{role: Agent, kind: KindCriterion, from: StatusBlocked, to: StatusCompleted},
		{role: Agent, kind: KindCriterion, from: StatusPending, to: StatusInProgress},
		{role: Agent, kind: KindCriterion, from: StatusInProgress, to: StatusBlocked},
		{role: Agent, kind: KindCriterion, from: StatusBlocked, to: StatusPending},
		{role: Agent, kind: KindCriterion, from: StatusCompleted, to: StatusCompleted},

		// Only an operator drops or reopens one.
		{role: Agent, kind: KindCriterion, from: StatusPending, to: StatusAbandoned, refusal: dropRefusal},
		{role: Agent, kind: KindCriterion, from: StatusCompleted, to: StatusAbandoned, refusal: dropRefusal},
		{role: Agent, kind: KindCriterion, from: StatusCompleted, to: StatusPending, refusal: reopenDone},
		{role: Agent, kind: KindCriterion, from: StatusCompleted, to: StatusInProgress, refusal: reopenDone},
		{role: Agent, kind: KindCriterion, from: StatusAbandoned, to: StatusPending, refusal: reopenDropped},
		{role: Agent, kind: KindCriterion, from: StatusAbandoned, to: StatusCompleted, refusal: reopenDropped},
		{role: Operator, kind: KindCriterion, from: StatusPending, to: StatusAbandoned},
		{role: Operator, kind: KindCriterion, from: StatusCompleted, to: StatusPending},
		{role: Operator, kind: KindCriterion, from: StatusAbandoned, to: StatusInProgress},

		// Steps are anyone's.
		{role: Agent, kind: KindStep, to: StatusPending},
		{role: Agent, kind: KindStep, from: StatusPending, to: StatusAbandoned},
		{role: Agent, kind: KindStep, from: StatusCompleted, to: StatusPending},
		{role: Agent, kind: KindStep, from: StatusAbandoned, to: StatusInProgress},
		{role: Operator, kind: KindStep, from: StatusBlocked, to: StatusCompleted},

		// Bad input.
		{role: "admin", kind: KindStep, from: StatusPending, to: StatusCompleted, invalid: true},
		{role: Agent, kind: "goal", from: StatusPending, to: StatusCompleted, invalid: true},
		{role: Agent, kind: KindStep, from: "done", to: StatusCompleted, invalid: true},
		{role: Agent, kind: KindStep, from: StatusPending, to: "", invalid: true},
	}
	for _, row := range rows {
		name := string(row.role) + " " + row.kind + " " + row.from + "->" + row.to
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
		path    string
		refused bool
	}{
		{path: ""},
		{path: "primary"},
		{path: "primary.subagents.ui", refused: true},
		{path: "primary.ui", refused: true},
		{path: "primary.", refused: true},
	}
	for _, row := range rows {
		t.Run(row.path, func(t *testing.T) {
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
