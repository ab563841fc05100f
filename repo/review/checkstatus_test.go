package review

import (
	"slices"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
)

// TestReplayStatusEveryAction: an entry of every action td writes, from
// every status to every status (and to what a link, a reopened criterion
// or an edit carries as "to"), read after an issue that was open. Only
// the transition actions move the status; one that moves it from a status
// the issue never had is the first broken entry.
func TestReplayStatusEveryAction(t *testing.T) {
	actions := []string{
		audit.ActionCreated, audit.ActionEdited, audit.ActionCommented, audit.ActionStarted, audit.ActionUnstarted,
		audit.ActionSubmitted, audit.ActionApproved, audit.ActionRejected, audit.ActionClosed, audit.ActionReopened,
		audit.ActionBlocked, audit.ActionUnblocked, audit.ActionBound, audit.ActionUnbound, audit.ActionCriterionCompleted,
		audit.ActionClosedAgainst, audit.ActionCriterionAdded, audit.ActionCriterionDropped, audit.ActionCriterionReopened,
		audit.ActionLinked, audit.ActionUnlinked, audit.ActionTodoProposed, audit.ActionSublistAccepted,
		audit.ActionSublistRejected, audit.ActionAnchorAdded, audit.ActionAnchorRemoved, audit.ActionImported,
		audit.KindCreatorApproval, audit.KindSelfClose, audit.KindOpenCriteriaOverride, audit.KindProvenanceConflict,
	}
	statuses := []string{"open", "in_progress", "blocked", "in_review", "closed"}
	tos := append(slices.Clone(statuses), "td-k3x9qa", "pending", "completed")
	for _, action := range actions {
		for _, from := range append([]string{""}, statuses...) {
			for _, to := range tos {
				d := map[string]any{"to": to}
				if from != "" {
					d["from"] = from
				}
				got := replayStatus(domain.StatusOpen, []audit.Entry{{Action: action, Details: d}}, addedAll)
				want := statusPath{broken: -1, had: []string{"open"}}
				switch {
				case !audit.MovesStatus(action):
				case from != "" && from != "open":
					want.broken = 0
				default:
					want.last = to
					if to != "open" {
						want.had = slices.Sorted(slices.Values([]string{"open", to}))
					}
				}
				if got.last != want.last || got.broken != want.broken || !slices.Equal(got.had, want.had) {
					t.Fatalf("%s from %q to %q: %+v, want %+v", action, from, to, got, want)
				}
			}
		}
	}
}

func TestReplayStatus(t *testing.T) {
	at := func(sec int) time.Time { return time.Date(2026, 11, 21, 10, 0, sec, 0, time.UTC) }
	tr := func(sec int, action, from, to string) audit.Entry {
		return audit.Entry{TS: at(sec), Action: action, Details: map[string]any{"from": from, "to": to}}
	}
	link := audit.Entry{TS: at(9), Action: audit.ActionLinked, Details: map[string]any{"kind": "blocked_by", "to": "td-k3x9qa"}}
	cases := []struct {
		name    string
		before  domain.Status
		entries []audit.Entry
		added   func(int) bool
		last    string
		broken  int
	}{
		{"nothing", domain.StatusOpen, nil, addedAll, "", -1},
		{"a link last", domain.StatusOpen, []audit.Entry{tr(1, "started", "open", "in_progress"), link}, addedAll, "in_progress", -1},
		{"only a link", domain.StatusOpen, []audit.Entry{link}, addedAll, "", -1},
		{"a round trip", domain.StatusOpen, []audit.Entry{tr(1, "started", "open", "in_progress"), tr(2, "unstarted", "in_progress", "open")}, addedAll, "open", -1},
		{"close, reopen, start", domain.StatusOpen, []audit.Entry{tr(1, "closed", "open", "closed"), tr(2, "reopened", "closed", "open"), tr(3, "started", "open", "in_progress")}, addedAll, "in_progress", -1},
		{"moved from a typed status", domain.StatusOpen, []audit.Entry{tr(1, "started", "open", "in_progress"), tr(2, "approved", "in_review", "closed")}, addedAll, "in_progress", 1},
		{"an import sets a status with no from", domain.StatusOpen, []audit.Entry{{Action: audit.ActionImported, Details: map[string]any{"to": "closed"}}}, addedAll, "closed", -1},
		{"a reopened criterion", domain.StatusInProgress, []audit.Entry{{Action: audit.ActionCriterionReopened, Details: map[string]any{"text": "x", "to": "pending"}}}, addedAll, "", -1},
		// After a union merge: ours (main's close at :05), then theirs (the
		// branch's start at :03). The later by time is the status kept.
		{"both sides moved it: the later by time", domain.StatusClosed, []audit.Entry{tr(5, "closed", "open", "closed"), tr(3, "started", "open", "in_progress")}, addedOnly(1), "closed", -1},
		{"both sides moved it: the branch's is later", domain.StatusClosed, []audit.Entry{tr(5, "closed", "open", "closed"), tr(7, "started", "open", "in_progress")}, addedOnly(1), "in_progress", -1},
		// A branch that forked while the issue was open moves it from open,
		// which the issue had, though the base has it closed by now.
		{"from the status the branch saw", domain.StatusClosed, []audit.Entry{tr(1, "closed", "open", "closed"), tr(2, "started", "open", "in_progress")}, addedOnly(1), "in_progress", -1},
		{"the base's entries are not judged", domain.StatusClosed, []audit.Entry{tr(1, "approved", "in_review", "closed")}, addedOnly(), "closed", -1},
		{"an added entry from a status nobody recorded", domain.StatusClosed, []audit.Entry{tr(1, "closed", "open", "closed"), tr(2, "approved", "in_review", "closed")}, addedOnly(1), "closed", 1},
		{"one second: file order", domain.StatusOpen, []audit.Entry{tr(1, "started", "open", "in_progress"), tr(1, "unstarted", "in_progress", "open")}, addedAll, "open", -1},
	}
	for _, c := range cases {
		got := replayStatus(c.before, c.entries, c.added)
		if got.last != c.last || got.broken != c.broken {
			t.Errorf("%s: last %q broken %d, want %q and %d", c.name, got.last, got.broken, c.last, c.broken)
		}
	}
}

// addedAll treats every entry as added by the range.
func addedAll(int) bool { return true }

// addedOnly treats the entries at the given indexes as added.
func addedOnly(idx ...int) func(int) bool {
	return func(i int) bool { return slices.Contains(idx, i) }
}
