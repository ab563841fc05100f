package review

import (
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
)

const describeBefore = `---
id: td-k3x9qa
title: Sign in with GitHub
status: in_progress
priority: P2
labels: [auth]
implementer: ses_c81kd0zz
assignee: session:ses_c81kd0zz
links:
  - {kind: child_of, to: td-a0b1c2}
---

Free description.

## Acceptance criteria

- [ ] A user can sign in with a GitHub account
- [ ] Expired tokens refresh without a prompt
- [x] Sign-out works

## Todos

### Backend
- [x] Register the OAuth app config
- [/] Implement the callback handler
- [ ] Integration test against a fake provider
- [!] Try the device flow
`

func TestDescribeIssueChange(t *testing.T) {
	after := strings.NewReplacer(
		"status: in_progress", "status: closed\nresolution: done",
		"priority: P2", "priority: P1",
		"labels: [auth]", "labels: [auth, backend]",
		"  - {kind: child_of, to: td-a0b1c2}", "  - {kind: blocked_by, to: td-zzzzzz}",
		"- [ ] A user can", "- [x] A user can",
		"- [ ] Expired tokens", "- [-] Expired tokens",
		"- [x] Sign-out works", "- [ ] Sign-out works",
		"- [/] Implement", "- [x] Implement",
		"- [ ] Integration test against a fake provider", "- [/] Integration test against a fake provider\n- [ ] Load test",
		"- [!] Try the device flow", "- [ ] Try the device flow",
		"- [x] Register the OAuth app config\n", "",
	).Replace(describeBefore)
	events, err := DescribeIssueChange([]byte(describeBefore), []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Kind+" | "+e.String())
	}
	want := []string{
		`closed | closed (done)`,
		`priority | priority P2 -> P1`,
		`link_added | link added: blocked_by td-zzzzzz`,
		`link_removed | link removed: child_of td-a0b1c2`,
		`label_added | label added: backend`,
		`criterion_completed | criterion completed: "A user can sign in with a GitHub account"`,
		`criterion_dropped | criterion dropped: "Expired tokens refresh without a prompt"`,
		`criterion_reopened | criterion reopened: "Sign-out works"`,
		`todo_completed | todo completed: "Implement the callback handler" [Backend]`,
		`todo_started | todo started: "Integration test against a fake provider" [Backend]`,
		`todo_added | todo added: "Load test" [Backend]`,
		`todo_unblocked | todo unblocked: "Try the device flow" [Backend]`,
		`todo_deleted | todo deleted: "Register the OAuth app config" [Backend]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDescribeIssueChangeCreatedAndDeleted(t *testing.T) {
	events, err := DescribeIssueChange(nil, []byte(describeBefore))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) < 2 || events[0].String() != `opened: "Sign in with GitHub"` || events[1].String() != "status open -> in_progress" {
		t.Errorf("created: %v", events)
	}
	crit := 0
	for _, e := range events {
		if e.Kind == CriterionPrefix+ItemAdded {
			crit++
		}
	}
	if crit != 3 {
		t.Errorf("created: %d criteria added, want 3: %v", crit, events)
	}
	events, err = DescribeIssueChange([]byte(describeBefore), nil)
	if err != nil || len(events) != 1 || events[0].Kind != EventDeleted {
		t.Errorf("deleted: %v %v", events, err)
	}
	events, err = DescribeIssueChange([]byte(describeBefore), []byte(describeBefore))
	if err != nil || len(events) != 0 {
		t.Errorf("unchanged: %v %v", events, err)
	}
}

func TestDescribeIssueChangeFieldsAndReopen(t *testing.T) {
	before := "---\nid: td-aaaaaa\ntitle: Old\nstatus: closed\nresolution: done\ncreated_by: ses_aaaaaaaa\n---\n\nText.\n"
	after := "---\nid: td-aaaaaa\ntitle: New\nstatus: open\nminor: true\ncreated_by: ses_bbbbbbbb\nassignee: session:ses_cccccccc\n---\n\nOther text.\n"
	events, err := DescribeIssueChange([]byte(before), []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.String())
	}
	want := []string{
		"reopened: closed -> open",
		`title "Old" -> "New"`,
		"assignee none -> session:ses_cccccccc",
		"created_by ses_aaaaaaaa -> ses_bbbbbbbb",
		"marked minor",
		"description edited",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDescribeIssueChangeUnreadable(t *testing.T) {
	_, err := DescribeIssueChange([]byte(describeBefore), []byte("---\nid: td-k3x9qa\ntitle: [\n---\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "the later version, line 3: ") {
		t.Errorf("error %v, want one naming the later version and line 3", err)
	}
}

func TestDescribeIssueChangeRepeatedText(t *testing.T) {
	before := "---\nid: td-aaaaaa\ntitle: T\n---\n\n## Todos\n\n- [ ] Same\n- [ ] Same\n"
	after := "---\nid: td-aaaaaa\ntitle: T\n---\n\n## Todos\n\n- [ ] Same\n- [x] Same\n"
	events, err := DescribeIssueChange([]byte(before), []byte(after))
	if err != nil || len(events) != 1 || events[0].Kind != TodoPrefix+ItemCompleted {
		t.Errorf("events %v %v, want one todo completed", events, err)
	}
}

func TestDiffSnapshots(t *testing.T) {
	issue := func(id, title, status string) string {
		return "---\nid: " + id + "\ntitle: " + title + "\nstatus: " + status + "\n---\n"
	}
	base := repo.MemSnapshot("main", map[string]string{
		"issues/td-aaaaaa.md":        issue("td-aaaaaa", "Kept", "open"),
		"issues/td-bbbbbb.md":        issue("td-bbbbbb", "Closed here", "in_review"),
		"history/td-bbbbbb.jsonl":    string(ledgerOf("A B")),
		"issues/td-cccccc.md":        issue("td-cccccc", "Gone", "open"),
		"issues/td-eeeeee.md":        "---\nid: td-eeeeee\ntitle: [\n---\n",
		"security_events.jsonl":      "",
		"sessions/ses_aaaaaaaa.yaml": "id: ses_aaaaaaaa\n",
	})
	head := repo.MemSnapshot("", map[string]string{
		"issues/td-aaaaaa.md":        issue("td-aaaaaa", "Kept", "open"),
		"issues/td-bbbbbb.md":        issue("td-bbbbbb", "Closed here", "closed"),
		"history/td-bbbbbb.jsonl":    string(ledgerOf("A X B Y")),
		"issues/td-dddddd.md":        issue("td-dddddd", "New", "open"),
		"issues/td-eeeeee.md":        issue("td-eeeeee", "Repaired", "open"),
		"sessions/ses_aaaaaaaa.yaml": "id: ses_aaaaaaaa\n",
	})
	d := diffSnapshots(base, head)
	var got []string
	for _, is := range d.Issues {
		line := is.ID + " " + is.Title + ":"
		for _, e := range is.Events {
			line += " " + e.String() + ";"
		}
		for _, e := range is.Ledger {
			line += " +" + e.Details["text"].(string) + ";"
		}
		got = append(got, line)
	}
	want := []string{
		"td-bbbbbb Closed here: closed; +X; +Y;",
		`td-cccccc Gone: deleted;`,
		`td-dddddd New: opened: "New";`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(d.Problems) != 1 || !strings.Contains(d.Problems[0].Error(), "main: .todos/issues/td-eeeeee.md:3: ") {
		t.Errorf("problems %v, want the unreadable base version of td-eeeeee", d.Problems)
	}
}
