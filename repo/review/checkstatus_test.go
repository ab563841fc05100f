package review

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
)

// judged runs judgeStatusStep on one step of an issue and returns the
// violations it found.
func judged(st statusStep) []Violation {
	c := &checker{report: &CheckReport{}, head: &repo.Snapshot{}}
	is := &repo.Issue{Path: ".todos/issues/td-k3x9qa.md"}
	is.ID = "td-k3x9qa"
	c.judgeStatusStep(is, st)
	return c.report.Violations
}

// TestJudgeStatusStepEveryAction: an entry of every action td writes, from
// every status to every status (and to what a link, a reopened criterion
// or an edit carries as "to"), added by a commit whose parent had the
// issue open, with the file at every status. Only the transition actions
// move the status; one that moves it from a status the parent did not
// give is a violation, and so is a file whose status is not where the
// last transition put it.
func TestJudgeStatusStepEveryAction(t *testing.T) {
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
				for _, file := range statuses {
					d := map[string]any{"to": to}
					if from != "" {
						d["from"] = from
					}
					got := judged(statusStep{commit: "1a2b3c4d", status: file, parents: []string{"open"}, added: []audit.Entry{{Action: action, Details: d}}})
					want := ""
					switch {
					case !audit.MovesStatus(action):
						if file != "open" {
							want = "records no transition"
						}
					case from != "" && from != "open":
						want = "a status it never had"
					case file != to:
						want = "the last transition the ledger recorded there moved it to " + to
					}
					switch {
					case want == "" && len(got) > 0:
						t.Fatalf("%s from %q to %q, file %s: %v, want none", action, from, to, file, got)
					case want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, want)):
						t.Fatalf("%s from %q to %q, file %s: %v, want one saying %q", action, from, to, file, got, want)
					}
				}
			}
		}
	}
}

func TestJudgeStatusStep(t *testing.T) {
	at := func(sec int) time.Time { return time.Date(2026, 11, 21, 10, 0, sec, 0, time.UTC) }
	tr := func(sec int, action, from, to string) audit.Entry {
		return audit.Entry{TS: at(sec), Action: action, Details: map[string]any{"from": from, "to": to}}
	}
	link := audit.Entry{TS: at(9), Action: audit.ActionLinked, Details: map[string]any{"kind": "blocked_by", "to": "td-k3x9qa"}}
	cases := []struct {
		name    string
		status  string
		parents []string
		added   []audit.Entry
		want    string // in the one violation; "" for none
	}{
		{"nothing changed", "open", []string{"open"}, nil, ""},
		{"typed into the file", "closed", []string{"in_progress"}, nil, "status changed from in_progress to closed in commit 1a2b3c4, and the ledger records no transition"},
		{"a link last", "in_progress", []string{"open"}, []audit.Entry{tr(1, "started", "open", "in_progress"), link}, ""},
		{"only a link", "open", []string{"open"}, []audit.Entry{link}, ""},
		{"a round trip in one commit", "open", []string{"open"}, []audit.Entry{tr(1, "started", "open", "in_progress"), tr(2, "unstarted", "in_progress", "open")}, ""},
		{"close, reopen, start", "in_progress", []string{"open"}, []audit.Entry{tr(1, "closed", "open", "closed"), tr(2, "reopened", "closed", "open"), tr(3, "started", "open", "in_progress")}, ""},
		{"moved from a typed status", "closed", []string{"open"}, []audit.Entry{tr(1, "started", "open", "in_progress"), tr(2, "approved", "in_review", "closed")}, `approved by none moved td-k3x9qa from in_review, a status it never had in commit 1a2b3c4 (it was "open")`},
		{"typed past the last transition", "closed", []string{"open"}, []audit.Entry{tr(1, "started", "open", "in_progress")}, "status is closed in commit 1a2b3c4, but the last transition the ledger recorded there moved it to in_progress"},
		{"moved with td, then typed back", "open", []string{"open"}, []audit.Entry{tr(1, "started", "open", "in_progress")}, "moved it to in_progress"},
		{"an import sets a status with no from", "closed", []string{"open"}, []audit.Entry{{Action: audit.ActionImported, Details: map[string]any{"to": "closed"}}}, ""},
		{"a reopened criterion is no transition", "in_progress", []string{"in_progress"}, []audit.Entry{{Action: audit.ActionCriterionReopened, Details: map[string]any{"text": "x", "to": "pending"}}}, ""},
		{"by time, not file order", "in_progress", []string{"open"}, []audit.Entry{tr(5, "unstarted", "in_progress", "open"), tr(3, "started", "open", "in_progress"), tr(7, "started", "open", "in_progress")}, ""},
		// A merge commit keeps either side's status: both were td's.
		{"a merge keeps ours", "closed", []string{"closed", "in_progress"}, nil, ""},
		{"a merge keeps theirs", "in_progress", []string{"closed", "in_progress"}, nil, ""},
		{"a merge gives neither", "in_review", []string{"closed", "in_progress"}, nil, "status changed from closed or in_progress to in_review in commit 1a2b3c4, and the ledger records no transition"},
		{"td ran while merging", "in_review", []string{"open", "in_progress"}, []audit.Entry{tr(1, "submitted", "in_progress", "in_review")}, ""},
		{"a root commit files an issue open", "open", nil, nil, ""},
	}
	for _, c := range cases {
		st := statusStep{commit: "1a2b3c4d", status: c.status, parents: c.parents, added: c.added}
		if st.parents == nil {
			st.parents = []string{"open"}
		}
		got := judged(st)
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %v, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, c.want)):
			t.Errorf("%s: %v, want one saying %q", c.name, got, c.want)
		}
	}
}

func TestStatusOf(t *testing.T) {
	cases := map[string]string{
		"---\nid: td-k3x9qa\nstatus: in_progress\n---\n":                    "in_progress",
		"---\nid: td-k3x9qa\nstatus: closed            # done\n---\n":       "closed",
		"---\nid: td-k3x9qa\nstatus: \"open\"\n---\n":                       "open",
		"---\r\nid: td-k3x9qa\r\nstatus: blocked\r\n---\r\n":                "blocked",
		"---\nid: td-k3x9qa\n---\nstatus: closed\n":                         "",
		"---\nid: td-k3x9qa\ntitle: x\n\nstatus: in_review\nimpl: a\n---\n": "in_review",
	}
	for file, want := range cases {
		if got := statusOf([]byte(file)); got != want {
			t.Errorf("statusOf(%q) = %q, want %q", file, got, want)
		}
	}
}
