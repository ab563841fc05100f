package sessions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
)

const handoffIssue = `---
id: td-qkm5oz
title: Sign in with GitHub
status: in_progress
type: feature
priority: P2
---

## Acceptance criteria

- [x] A user can sign in with GitHub
- [ ] Expired tokens refresh without a prompt

## Todos

- [x] Register the OAuth app
- [x] Add the login button
- [/] Write the callback handler
- [ ] Store the token
- [ ] Test against a fake provider
- [ ] Document the setup
- [!] Ask for the production secret
  > blocked: the secrets vault is down
- [-] Try the device flow
`

func TestBuildHandoff(t *testing.T) {
	is, err := repo.ParseIssue(".todos/issues/td-qkm5oz.md", "td-qkm5oz", []byte(handoffIssue))
	if err != nil {
		t.Fatal(err)
	}
	se := &repo.Session{ID: "ses_qmt3y9ft", Agent: "primary"}
	now := time.Date(2026, 11, 21, 10, 30, 0, 0, time.UTC)
	rt := &repo.Runtime{LastError: "Bash: Exit code 1 — --- FAIL: TestCallback at go test ./auth/...", SameErrorRun: 3, Errors: 3,
		Via: repo.Attribution{Harness: "codex", Model: "gpt-5-codex"}}
	h := BuildHandoff(is, se, rt, HandoffCompaction, "  The callback test still\nfails on state.  ", now)
	want := &Handoff{Issue: "td-qkm5oz", Session: "ses_qmt3y9ft", TS: now, At: HandoffCompaction,
		Done: []string{"A user can sign in with GitHub", "Register the OAuth app", "Add the login button"},
		Next: []string{"Write the callback handler", "Store the token", "Test against a fake provider"},
		Open: []string{"blocked: Ask for the production secret (the secrets vault is down)",
			"the last error: Bash: Exit code 1 — --- FAIL: TestCallback at go test ./auth/... (3 times in a row)",
			"the agent's last message: The callback test still fails on state."},
		Via: rt.Via}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("got  %+v\nwant %+v", h, want)
	}
	// Its ledger entry reads back the same, through JSON as a ledger line.
	line, err := h.Entry().Line()
	if err != nil {
		t.Fatal(err)
	}
	var e audit.Entry
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatal(err)
	}
	e.Details = repo.Attribution{Harness: "codex", Model: "gpt-5-codex"}.Details(e.Details)
	if back := HandoffOf("td-qkm5oz", e); !reflect.DeepEqual(back, want) {
		t.Fatalf("read back %+v\nwant %+v", back, want)
	}
	if !strings.HasPrefix(string(line), `{"ts":"2026-11-21T10:30:00Z","session":"ses_qmt3y9ft","action":"handoff","at":"compaction","done":[`) {
		t.Errorf("the line: %s", line)
	}
	// Many finished items: the latest five, and how many before them.
	many := strings.Replace(handoffIssue, "- [x] Register the OAuth app\n", "- [x] a\n- [x] b\n- [x] c\n- [x] d\n- [x] e\n", 1)
	is, _ = repo.ParseIssue(".todos/issues/td-qkm5oz.md", "td-qkm5oz", []byte(many))
	h = BuildHandoff(is, se, &repo.Runtime{}, HandoffEnd, "", now)
	if strings.Join(h.Done, ",") != "b,c,d,e,Add the login button" || h.More != 2 || len(h.Open) != 1 {
		t.Errorf("many done: %+v", h)
	}
}

func TestLatestRejection(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 11, 21, 10, m, 0, 0, time.UTC) }
	e := func(m int, action, reason string) audit.Entry {
		return audit.Entry{TS: at(m), Session: "ses_eohe8m2y", Action: action, Reason: reason}
	}
	for _, c := range []struct {
		name    string
		entries []audit.Entry
		want    *Rejection
	}{
		{"never reviewed", []audit.Entry{e(0, "created", ""), e(1, "started", "")}, nil},
		{"rejected", []audit.Entry{e(1, "submitted", ""), e(2, "rejected", "no state check"), e(3, "commented", "")},
			&Rejection{Issue: "td-q", Session: "ses_eohe8m2y", TS: at(2), Reason: "no state check"}},
		{"submitted again", []audit.Entry{e(2, "rejected", "x"), e(4, "submitted", "")}, nil},
		{"approved at last", []audit.Entry{e(2, "rejected", "x"), e(4, "approved", "")}, nil},
		{"the latest of two", []audit.Entry{e(2, "rejected", "x"), e(3, "submitted", ""), e(5, "rejected", "y")},
			&Rejection{Issue: "td-q", Session: "ses_eohe8m2y", TS: at(5), Reason: "y"}},
	} {
		if got := LatestRejection("td-q", c.entries); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// RecordHandoff writes on the bound issue's ledger, once for the same
// note, and the session's attribution comes with it.
func TestRecordHandoff(t *testing.T) {
	s, now := clockStore(t)
	se, err := s.StartSession(repo.StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := RecordHandoff(s, se, HandoffEnd, ""); h != nil || err != nil {
		t.Fatalf("bound to nothing: %+v %v", h, err)
	}
	is, err := issues.Create(s, se, issues.CreateOptions{Title: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(s, se, is.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
		rt.Via = repo.Attribution{Harness: "claude", Model: "claude-opus-4-5"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h, err := RecordHandoff(s, se, HandoffEnd, "Done for today.")
	if err != nil || h == nil {
		t.Fatalf("first: %+v %v", h, err)
	}
	*now = now.Add(time.Minute)
	if again, err := RecordHandoff(s, se, HandoffEnd, "Done for today."); again != nil || err != nil {
		t.Fatalf("the same again: %+v %v", again, err)
	}
	entries, _, err := s.Ledger(is.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := LatestHandoff(is.ID, entries)
	if last == nil || last.Via.Harness != "claude" || last.Via.Model != "claude-opus-4-5" || last.Open[0] != "the agent's last message: Done for today." {
		t.Fatalf("on the ledger: %+v", last)
	}
}
