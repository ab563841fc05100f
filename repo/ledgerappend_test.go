package repo

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tdproject/td/audit"
)

// TestAppendLedgerKeepsEntriesDistinct: readers count identical ledger
// lines as one entry, so the same entry appended twice in one second (a
// start, an unstart and a start again; one comment made twice) is
// written with a repeat detail, and every entry reads back.
func TestAppendLedgerKeepsEntriesDistinct(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	is, err := createIssue(s, se, "Sign in")
	if err != nil {
		t.Fatal(err)
	}
	comment := audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": "again"}}
	other := audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": "between"}}
	for _, e := range []audit.Entry{comment, other, comment, comment} {
		if err := s.Update(func(tx *Tx) error { return s.AppendLedger(tx, is.ID, e) }); err != nil {
			t.Fatal(err)
		}
	}
	if comment.Details["repeat"] != nil {
		t.Fatal("AppendLedger changed the caller's details")
	}
	data, err := os.ReadFile(s.Path(HistoryDir, is.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []string{
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","text":"again"}`,
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","text":"between"}`,
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","repeat":2,"text":"again"}`,
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","repeat":3,"text":"again"}`,
	}
	if got := strings.Join(lines[1:], "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("ledger:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	entries, errs, err := s.Ledger(is.ID)
	if err != nil || len(errs) > 0 || len(entries) != 5 {
		t.Fatalf("read back %d entries (%v, %v), want 5", len(entries), errs, err)
	}
	// The same lines arriving again, as a union merge writes them, add
	// nothing.
	if err := os.WriteFile(s.Path(HistoryDir, is.ID+".jsonl"), append(data, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, _, _ := s.Ledger(is.ID); len(again) != 5 {
		t.Fatalf("a doubled ledger reads as %d entries, want 5", len(again))
	}
}

func TestReadTail(t *testing.T) {
	p := t.TempDir() + "/log"
	if got := readTail(p, 10); got != nil {
		t.Fatalf("no file: %q", got)
	}
	os.WriteFile(p, []byte("first line\nsecond\nthird\n"), 0o644)
	for _, c := range []struct {
		n    int64
		want string
	}{{100, "first line\nsecond\nthird\n"}, {13, "third\n"}, {14, "second\nthird\n"}, {3, ""}} {
		if got := readTail(p, c.n); !bytes.Equal(got, []byte(c.want)) {
			t.Errorf("readTail(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestAppendLedgerNamesTheHarness: a session a harness hook acted as
// names its harness, model and subagent in every entry it writes, in the
// one canonical form (details in key order), never over a detail the
// entry carries; a session without one writes entries as before.
func TestAppendLedgerNamesTheHarness(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	is, err := createIssue(s, se, "Sign in")
	if err != nil {
		t.Fatal(err)
	}
	appendEntry := func(e audit.Entry) {
		t.Helper()
		if err := s.Update(func(tx *Tx) error { return s.AppendLedger(tx, is.ID, e) }); err != nil {
			t.Fatal(err)
		}
	}
	appendEntry(audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": "by hand"}})
	if err := s.UpdateRuntime(se.ID, func(rt *Runtime) error {
		rt.Via = Attribution{Harness: "claude", Model: "claude-opus-4-5", AgentID: "a1b2", AgentType: "Explore"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	details := map[string]any{"text": "via claude"}
	appendEntry(audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: details})
	appendEntry(audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionImported, Details: map[string]any{"model": "theirs"}})
	if len(details) != 1 {
		t.Fatal("AppendLedger changed the caller's details")
	}
	data, err := os.ReadFile(s.Path(HistoryDir, is.ID+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []string{
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","text":"by hand"}`,
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"commented","agent_id":"a1b2","agent_type":"Explore","harness":"claude","model":"claude-opus-4-5","text":"via claude"}`,
		`{"ts":"2026-11-21T10:00:00Z","session":"` + se.ID + `","action":"imported","agent_id":"a1b2","agent_type":"Explore","harness":"claude","model":"theirs"}`,
	}
	got := lines[len(lines)-3:]
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	entries, _, _ := s.Ledger(is.ID)
	if a := AttributionOf(entries[len(entries)-2].Details); a.Words() != "claude (claude-opus-4-5), subagent Explore" {
		t.Errorf("read back: %q", a.Words())
	}
}
