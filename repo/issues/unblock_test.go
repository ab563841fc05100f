package issues

import (
	"os"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
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

// Unblock reads the ledger for where the issue came from. A ledger line
// td cannot parse (a hand edit, a torn append) is skipped; a ledger gone
// altogether falls back on the implementer.
func TestUnblockWithAHandEditedLedger(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(path string) error
		want domain.Status
	}{
		{"a torn line after the block", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString(`{"ts":"2026-11-21T10:00:00Z","act`)
			return err
		}, domain.StatusInProgress},
		{"the ledger deleted", os.Remove, domain.StatusInProgress},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := repotest.NewStore(t)
			se := repotest.Actor(t, s)
			is, err := Create(s, se, CreateOptions{Title: "Sign in"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Start(s, se, is.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := Block(s, se, is.ID, TransitionOptions{Reason: "waiting"}); err != nil {
				t.Fatal(err)
			}
			if err := tt.edit(s.Path(repo.HistoryDir, is.ID+".jsonl")); err != nil {
				t.Fatal(err)
			}
			res, err := Unblock(s, se, is.ID, TransitionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Issue.Status != tt.want {
				t.Errorf("unblocked to %s, want %s", res.Issue.Status, tt.want)
			}
		})
	}
}
