package issues

import (
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
)

func TestUnblockedStatus(t *testing.T) {
	blocked := func(from string) audit.Entry {
		return audit.Entry{Action: audit.ActionBlocked, Details: map[string]any{"from": from, "to": "blocked"}}
	}
	started := audit.Entry{Action: audit.ActionStarted}
	tests := []struct {
		name        string
		entries     []audit.Entry
		implementer string
		want        domain.Status
	}{
		{"from open", []audit.Entry{blocked("open")}, "", domain.StatusOpen},
		{"from in progress", []audit.Entry{started, blocked("in_progress")}, "ses_a", domain.StatusInProgress},
		{"from in progress, implementer gone", []audit.Entry{blocked("in_progress")}, "", domain.StatusOpen},
		{"from review", []audit.Entry{blocked("in_review")}, "ses_a", domain.StatusInReview},
		{"the last block counts", []audit.Entry{blocked("open"), started, blocked("in_progress")}, "ses_a", domain.StatusInProgress},
		{"hand edit, implementer", []audit.Entry{started}, "ses_a", domain.StatusInProgress},
		{"hand edit, nobody", nil, "", domain.StatusOpen},
		{"a forged from", []audit.Entry{blocked("closed")}, "ses_a", domain.StatusInProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unblockedStatus(tt.entries, tt.implementer); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
