package review

import (
	"slices"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
)

func TestStatusRecorded(t *testing.T) {
	cases := []struct {
		name        string
		before, now domain.Status
		lastTo      string
		want        bool
	}{
		{"unchanged, nothing recorded", domain.StatusOpen, domain.StatusOpen, "", true},
		{"moved with td", domain.StatusOpen, domain.StatusInProgress, "in_progress", true},
		{"typed into the file", domain.StatusInProgress, domain.StatusClosed, "", false},
		{"typed past the last transition", domain.StatusOpen, domain.StatusClosed, "in_progress", false},
		{"moved away and back with td", domain.StatusOpen, domain.StatusOpen, "open", true},
		{"moved with td, then typed back", domain.StatusOpen, domain.StatusOpen, "in_progress", false},
		{"a new issue typed into review", domain.StatusOpen, domain.StatusInReview, "", false},
	}
	for _, c := range cases {
		if got := statusRecorded(c.before, c.now, c.lastTo); got != c.want {
			t.Errorf("%s: statusRecorded(%s, %s, %q) = %v, want %v", c.name, c.before, c.now, c.lastTo, got, c.want)
		}
	}
}

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
				got := replayStatus(domain.StatusOpen, []audit.Entry{{Action: action, Details: d}})
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
	tr := func(action, from, to string) audit.Entry {
		return audit.Entry{Action: action, Details: map[string]any{"from": from, "to": to}}
	}
	link := audit.Entry{Action: audit.ActionLinked, Details: map[string]any{"kind": "blocked_by", "to": "td-k3x9qa"}}
	cases := []struct {
		name    string
		before  domain.Status
		entries []audit.Entry
		last    string
		broken  int
	}{
		{"nothing", domain.StatusOpen, nil, "", -1},
		{"a link last", domain.StatusOpen, []audit.Entry{tr("started", "open", "in_progress"), link}, "in_progress", -1},
		{"only a link", domain.StatusOpen, []audit.Entry{link}, "", -1},
		{"a round trip", domain.StatusOpen, []audit.Entry{tr("started", "open", "in_progress"), tr("unstarted", "in_progress", "open")}, "open", -1},
		{"close, reopen, start", domain.StatusOpen, []audit.Entry{tr("closed", "open", "closed"), tr("reopened", "closed", "open"), tr("started", "open", "in_progress")}, "in_progress", -1},
		{"moved from a typed status", domain.StatusOpen, []audit.Entry{tr("started", "open", "in_progress"), tr("approved", "in_review", "closed")}, "in_progress", 1},
		{"an import sets a status with no from", domain.StatusOpen, []audit.Entry{{Action: audit.ActionImported, Details: map[string]any{"to": "closed"}}}, "closed", -1},
		{"a reopened criterion", domain.StatusInProgress, []audit.Entry{{Action: audit.ActionCriterionReopened, Details: map[string]any{"text": "x", "to": "pending"}}}, "", -1},
	}
	for _, c := range cases {
		got := replayStatus(c.before, c.entries)
		if got.last != c.last || got.broken != c.broken {
			t.Errorf("%s: last %q broken %d, want %q and %d", c.name, got.last, got.broken, c.last, c.broken)
		}
	}
}
