package exchange

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestMapStatus(t *testing.T) {
	for _, tt := range []struct {
		table map[string]statusWord
		in    string
		want  statusWord
		known bool
	}{
		{beadsStatuses, "open", statusWord{domain.StatusOpen, ""}, true},
		{beadsStatuses, "in_progress", statusWord{domain.StatusInProgress, ""}, true},
		{beadsStatuses, "blocked", statusWord{domain.StatusBlocked, ""}, true},
		{beadsStatuses, "deferred", statusWord{domain.StatusOpen, ""}, true},
		{beadsStatuses, "closed", statusWord{domain.StatusClosed, domain.ResolutionDone}, true},
		{beadsStatuses, "tombstone", statusWord{domain.StatusClosed, domain.ResolutionWontfix}, true},
		{beadsStatuses, "CLOSED", statusWord{domain.StatusClosed, domain.ResolutionDone}, true},
		{beadsStatuses, "", statusWord{domain.StatusOpen, ""}, true},
		{beadsStatuses, "frozen", statusWord{domain.StatusOpen, ""}, false},
		{backlogStatuses, "To Do", statusWord{domain.StatusOpen, ""}, true},
		{backlogStatuses, " in progress ", statusWord{domain.StatusInProgress, ""}, true},
		{backlogStatuses, "Done", statusWord{domain.StatusClosed, domain.ResolutionDone}, true},
		{backlogStatuses, "QA", statusWord{domain.StatusOpen, ""}, false},
	} {
		got, known := mapStatus(tt.table, tt.in)
		if got != tt.want || known != tt.known {
			t.Errorf("mapStatus(%q) = %v, %t; want %v, %t", tt.in, got, known, tt.want, tt.known)
		}
	}
}

func TestMapPriority(t *testing.T) {
	for _, tt := range []struct {
		words map[string]domain.Priority
		in    string
		want  domain.Priority
		known bool
	}{
		{nil, "0", domain.P0, true},
		{nil, "4", domain.P4, true},
		{nil, "5", domain.P2, false},
		{nil, "-1", domain.P2, false},
		{nil, "p3", domain.P3, true},
		{nil, "", domain.P2, true},
		{nil, "high", domain.P2, false},
		{backlogPriorities, "high", domain.P1, true},
		{backlogPriorities, "Medium", domain.P2, true},
		{backlogPriorities, "low", domain.P3, true},
		{backlogPriorities, "urgent", domain.P2, false},
	} {
		got, known := mapPriority(tt.words, tt.in)
		if got != tt.want || known != tt.known {
			t.Errorf("mapPriority(%q) = %s, %t; want %s, %t", tt.in, got, known, tt.want, tt.known)
		}
	}
}

func TestMapType(t *testing.T) {
	for _, tt := range []struct {
		table map[string]domain.IssueType
		in    string
		want  domain.IssueType
		known bool
	}{
		{beadsTypes, "bug", domain.TypeBug, true},
		{beadsTypes, "epic", domain.TypeEpic, true},
		{beadsTypes, "molecule", domain.TypeTask, false},
		{beadsTypes, "", domain.TypeTask, true},
		{backlogTypes, "enhancement", domain.TypeFeature, true},
		{backlogTypes, "docs", domain.TypeChore, true},
		{githubLabelTypes, "Bug", domain.TypeBug, true},
	} {
		got, known := mapType(tt.table, tt.in)
		if got != tt.want || known != tt.known {
			t.Errorf("mapType(%q) = %s, %t; want %s, %t", tt.in, got, known, tt.want, tt.known)
		}
	}
}

func TestPriorityLabel(t *testing.T) {
	for in, want := range map[string]domain.Priority{"P0": domain.P0, "p4": domain.P4, "priority:high": domain.P1, "priority: 3": domain.P3, "bug": "", "P": "", "P9": ""} {
		got, ok := priorityLabel(in)
		if ok != (want != "") || (ok && got != want) {
			t.Errorf("priorityLabel(%q) = %s, %t; want %s", in, got, ok, want)
		}
	}
}

func TestBeadsLinks(t *testing.T) {
	r, err := beadsRecord(Position{Path: "x", Line: 1}, []byte(`{"id":"bd-2.1","title":"t","dependencies":[
		{"issue_id":"bd-2.1","depends_on_id":"bd-1","type":"blocks"},
		{"issue_id":"bd-2.1","depends_on_id":"bd-3","type":"related"},
		{"issue_id":"bd-2.1","depends_on_id":"bd-4","type":"duplicates"},
		{"issue_id":"bd-2.1","depends_on_id":"bd-5","type":"new-kind"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{{domain.BlockedBy, "beads:bd-1"}, {domain.RelatesTo, "beads:bd-3"}, {domain.DuplicateOf, "beads:bd-4"},
		{domain.RelatesTo, "beads:bd-5"}, {domain.ChildOf, "beads:bd-2"}}
	if len(r.Links) != len(want) {
		t.Fatalf("links %v, want %v", r.Links, want)
	}
	for i := range want {
		if r.Links[i] != want[i] {
			t.Errorf("link %d = %v, want %v", i, r.Links[i], want[i])
		}
	}
	if r.Extra["dependencies"] == nil {
		t.Error("the dependency of an unknown type is not kept under imported:")
	}
}

func TestSplitTaskLists(t *testing.T) {
	desc, crit, steps := splitTaskLists("Intro\n\n## Acceptance criteria\n- [x] met\n\n## Todos\n### Backend\n- [ ] api\n- [x] ~~dropped~~\n- [ ] waits (blocked)\n\n```\n- [ ] code\n```\n")
	if desc != "Intro\n\n```\n- [ ] code\n```" {
		t.Errorf("description %q", desc)
	}
	if len(crit) != 1 || crit[0].Text != "met" || crit[0].Status != domain.TodoCompleted {
		t.Errorf("criteria %v", crit)
	}
	want := []Item{{Text: "api", Status: domain.TodoPending, Phase: "Backend"}, {Text: "dropped", Status: domain.TodoAbandoned, Phase: "Backend"},
		{Text: "waits", Status: domain.TodoBlocked, Phase: "Backend"}}
	if len(steps) != len(want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	for i := range want {
		if steps[i].Text != want[i].Text || steps[i].Status != want[i].Status || steps[i].Phase != want[i].Phase {
			t.Errorf("step %d = %+v, want %+v", i, steps[i], want[i])
		}
	}
}

// TestSplitTaskListsDropsEmptiedHeadings: a heading whose task list moved
// to the checklist, and that holds nothing else, leaves the description
// with it; one that still holds text, or never held a task list, stays.
func TestSplitTaskListsDropsEmptiedHeadings(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"a plan of tasks only", "Intro\n\n### Plan\n\n- [ ] one\n- [x] two\n", "Intro"},
		{"a plan with text", "Intro\n\n### Plan\n\nFirst the API.\n\n- [ ] one\n", "Intro\n\n### Plan\n\nFirst the API."},
		{"an empty heading of the author's", "Intro\n\n## Notes\n\n## Plan\n- [ ] one\n", "Intro\n\n## Notes"},
		{"a section whose subsections all went", "Intro\n\n## Work\n\n### API\n- [ ] one\n### UI\n- [ ] two\n\n## Risks\n\nNone.\n", "Intro\n\n## Risks\n\nNone."},
		{"one subsection kept", "## Work\n\n### API\n- [ ] one\n### UI\n\nSketch first.\n", "## Work\n\n### UI\n\nSketch first."},
		{"before td's own sections", "Intro\n\n### Plan\n- [ ] one\n\n## Acceptance criteria\n- [ ] met\n", "Intro"},
		{"a code block keeps its heading", "### Plan\n\n```\n- [ ] not a task\n```\n", "### Plan\n\n```\n- [ ] not a task\n```"},
	} {
		if got, _, _ := splitTaskLists(tc.body); got != tc.want {
			t.Errorf("%s: description %q, want %q", tc.name, got, tc.want)
		}
	}
}
