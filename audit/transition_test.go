package audit

import (
	"testing"
	"time"
)

func TestLastTransition(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 11, 21, h, 0, 0, 0, time.UTC) }
	started := Entry{TS: at(11), Session: "ses_agent", Action: ActionStarted, Details: map[string]any{"from": "open", "to": "in_progress"}}
	closed := Entry{TS: at(12), Session: "ses_lead", Action: ActionClosed, Details: map[string]any{"from": "open", "to": "closed", "resolution": "wontfix"}}
	linked := Entry{TS: at(13), Session: "ses_lead", Action: ActionLinked, Details: map[string]any{"kind": "blocked_by", "to": "td-er4en8"}}
	reopenedCriterion := Entry{TS: at(14), Session: "ses_lead", Action: ActionCriterionReopened, Details: map[string]any{"text": "It works", "to": "pending"}}
	comment := Entry{TS: at(15), Session: "ses_lead", Action: ActionCommented, Details: map[string]any{"text": "to: closed"}}
	sameSecond := Entry{TS: at(12), Session: "ses_other", Action: ActionReopened, Details: map[string]any{"from": "closed", "to": "open"}}
	imported := Entry{TS: at(9), Session: "ses_lead", Action: ActionImported, Details: map[string]any{"imported_from": "beads:bd-1", "to": "blocked"}}
	tests := []struct {
		name    string
		entries []Entry
		want    string // the status, "" for none
	}{
		{"none", nil, ""},
		{"only a link, whose to is an issue", []Entry{linked}, ""},
		{"only a reopened criterion, whose to is a todo's", []Entry{reopenedCriterion}, ""},
		{"a comment", []Entry{comment}, ""},
		{"an import", []Entry{imported}, "blocked"},
		{"one transition", []Entry{started}, "in_progress"},
		{"the later by time, whatever the file order", []Entry{closed, started}, "closed"},
		{"the later by time, in file order", []Entry{started, closed}, "closed"},
		{"links and criteria after it do not count", []Entry{started, closed, linked, reopenedCriterion, comment}, "closed"},
		{"one second apart from nothing: file order", []Entry{closed, sameSecond}, "open"},
		{"one second, the other order", []Entry{sameSecond, closed}, "closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := LastTransition(tt.entries)
			_, got, _ := e.Transition()
			if ok != (tt.want != "") || got != tt.want {
				t.Fatalf("LastTransition = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}
