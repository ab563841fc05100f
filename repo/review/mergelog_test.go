package review

import (
	"strings"
	"testing"

	"github.com/tdproject/td/audit"
)

func TestDescribeMerge(t *testing.T) {
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(describeBefore) }
	tests := []struct {
		name                 string
		ours, theirs, merged string
		want                 []string
	}{
		{
			name:   "both changed a field, ours kept",
			ours:   edit("priority: P2", "priority: P3"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: edit("priority: P2", "priority: P3"),
			want:   []string{"resolved: priority P3 (ours) over P1 (theirs)"},
		},
		{
			name:   "both changed a field, theirs kept",
			ours:   edit("priority: P2", "priority: P3"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: edit("priority: P2", "priority: P1"),
			want:   []string{"resolved: priority P1 (theirs) over P3 (ours)"},
		},
		{
			name:   "both changed a field, a third value",
			ours:   edit("priority: P2", "priority: P3"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: edit("priority: P2", "priority: P0"),
			want:   []string{"resolved: priority P0 over P3 (ours) and P1 (theirs)"},
		},
		{
			name:   "both changed a field, back to the base",
			ours:   edit("priority: P2", "priority: P3"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: describeBefore,
			want:   []string{"resolved: priority P2 over P3 (ours) and P1 (theirs)"},
		},
		{
			name:   "the same change on both sides",
			ours:   edit("priority: P2", "priority: P1"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: edit("priority: P2", "priority: P1"),
		},
		{
			name:   "one side's changes taken: no outcome",
			ours:   edit("priority: P2", "priority: P1"),
			theirs: edit("labels: [auth]", "labels: [auth, ui]", "- [ ] Expired tokens", "- [x] Expired tokens"),
			merged: edit("priority: P2", "priority: P1", "labels: [auth]", "labels: [auth, ui]", "- [ ] Expired tokens", "- [x] Expired tokens"),
		},
		{
			name:   "theirs' label lost",
			ours:   edit("priority: P2", "priority: P1"),
			theirs: edit("labels: [auth]", "labels: [auth, ui]"),
			merged: edit("priority: P2", "priority: P1"),
			want:   []string{"lost from theirs: label added: ui"},
		},
		{
			name:   "ours' criterion lost",
			ours:   edit("- [ ] Expired tokens", "- [x] Expired tokens"),
			theirs: edit("priority: P2", "priority: P1"),
			merged: edit("priority: P2", "priority: P1"),
			want:   []string{`lost from ours: criterion completed: "Expired tokens refresh without a prompt"`},
		},
		{
			name:   "a step both sides moved",
			ours:   edit("- [/] Implement", "- [!] Implement"),
			theirs: edit("- [/] Implement", "- [x] Implement"),
			merged: edit("- [/] Implement", "- [x] Implement"),
			want:   []string{`resolved: todo "Implement the callback handler" [Backend] completed (theirs) over blocked (ours)`},
		},
		{
			name:   "status, both sides",
			ours:   edit("status: in_progress", "status: blocked"),
			theirs: edit("status: in_progress", "status: closed\nresolution: done"),
			merged: edit("status: in_progress", "status: blocked"),
			want:   []string{"resolved: status blocked (ours) over closed (done) (theirs)"},
		},
		{
			name:   "the description, both sides",
			ours:   edit("Free description.", "Ours."),
			theirs: edit("Free description.", "Theirs."),
			merged: edit("Free description.", "Theirs."),
			want:   []string{"resolved: description as theirs edited it, over ours' edit"},
		},
		{
			name:   "the description, rewritten",
			ours:   edit("Free description.", "Ours."),
			theirs: edit("Free description.", "Theirs."),
			merged: edit("Free description.", "Both."),
			want:   []string{"resolved: description rewritten, over both sides' edits"},
		},
		{
			name:   "the description, one side lost",
			ours:   edit("Free description.", "Ours."),
			theirs: describeBefore,
			merged: describeBefore,
			want:   []string{"lost from ours: description edited"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range DescribeMerge([]byte(describeBefore), []byte(tt.ours), []byte(tt.theirs), []byte(tt.merged)) {
				got = append(got, o.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	if got := DescribeMerge(nil, []byte(describeBefore), []byte(describeBefore), []byte(describeBefore)); got != nil {
		t.Errorf("no base: %v, want none", got)
	}
	if got := DescribeMerge([]byte(describeBefore), []byte("---\nnot: [closed\n---\n"), []byte(describeBefore), []byte(describeBefore)); got != nil {
		t.Errorf("an unreadable side: %v, want none", got)
	}
}

func TestLedgerRecords(t *testing.T) {
	edited := audit.Entry{Action: audit.ActionEdited, Details: map[string]any{
		"fields": []any{"priority", "description"}, "priority": map[string]any{"from": "P2", "to": "P1"}}}
	started := audit.Entry{Action: audit.ActionStarted, Details: map[string]any{"from": "open", "to": "in_progress"}}
	done := audit.Entry{Action: audit.ActionCriterionCompleted, Details: map[string]any{"text": "Tokens refresh"}}
	tests := []struct {
		name string
		e    audit.Entry
		ev   IssueEvent
		want bool
	}{
		{"the edit to that value", edited, IssueEvent{Kind: EventPriority, From: "P2", To: "P1"}, true},
		{"an edit to another value", edited, IssueEvent{Kind: EventPriority, From: "P2", To: "P3"}, false},
		{"an edit of another field", edited, IssueEvent{Kind: EventType, From: "task", To: "bug"}, false},
		{"the description edited", edited, IssueEvent{Kind: EventDescription}, true},
		{"a status move to that status", started, IssueEvent{Kind: EventStatus, From: "open", To: "in_progress"}, true},
		{"a status move to another", started, IssueEvent{Kind: EventStatus, From: "open", To: "blocked"}, false},
		{"a criterion completed", done, IssueEvent{Kind: CriterionPrefix + ItemCompleted, Text: "Tokens refresh", To: "completed"}, true},
		{"another criterion", done, IssueEvent{Kind: CriterionPrefix + ItemCompleted, Text: "Other", To: "completed"}, false},
		{"a step is never in the ledger", done, IssueEvent{Kind: TodoPrefix + ItemCompleted, Text: "Tokens refresh", To: "completed"}, false},
	}
	for _, tt := range tests {
		if got := ledgerRecords(tt.e, tt.ev); got != tt.want {
			t.Errorf("%s: ledgerRecords = %v, want %v", tt.name, got, tt.want)
		}
	}
}
