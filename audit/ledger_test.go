package audit

import (
	"strings"
	"testing"
	"time"
)

func TestEntryRoundTrip(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 4, 11, 0, time.UTC)
	tests := []struct {
		name string
		in   Entry
		want string
	}{
		{"plain", Entry{TS: ts, Session: "ses_aaaaaaaa", Action: ActionCreated},
			`{"ts":"2026-11-21T10:04:11Z","session":"ses_aaaaaaaa","action":"created"}`},
		{"details sorted, reason and type last",
			Entry{TS: ts, Session: "ses_b", Action: "approved", Details: map[string]any{"z": "1", "a": true}, Reason: "lead review", Type: TypeSecurity},
			`{"ts":"2026-11-21T10:04:11Z","session":"ses_b","action":"approved","a":true,"z":"1","reason":"lead review","type":"security"}`},
		{"reserved detail keys cannot shadow fields",
			Entry{TS: ts, Session: "s", Action: "edited", Details: map[string]any{"action": "forged", "text": "hi"}},
			`{"ts":"2026-11-21T10:04:11Z","session":"s","action":"edited","text":"hi"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := tt.in.Line()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(string(line), "\n"); got != tt.want {
				t.Fatalf("encode:\n got %s\nwant %s", got, tt.want)
			}
			entries, errs := ParseLedger(line)
			if len(errs) != 0 || len(entries) != 1 {
				t.Fatalf("parse: %v %v", entries, errs)
			}
			again, _ := entries[0].Line()
			if string(again) != string(line) {
				t.Fatalf("re-encode changed the line:\n%s%s", line, again)
			}
		})
	}
}

func TestParseLedgerReportsBadLines(t *testing.T) {
	data := []byte(`{"ts":"2026-11-21T10:04:11Z","session":"s","action":"created"}

not json
{"ts":"yesterday","session":"s","action":"created"}
{"ts":"2026-11-21T10:04:12Z","session":"s","action":"commented","text":"ok"}`)
	entries, errs := ParseLedger(data)
	if len(entries) != 2 {
		t.Fatalf("got %d entries, want 2", len(entries))
	}
	if len(errs) != 2 || errs[0].Line != 3 || errs[1].Line != 4 {
		t.Fatalf("errors = %v, want lines 3 and 4", errs)
	}
	if entries[1].Details["text"] != "ok" {
		t.Fatalf("details lost: %v", entries[1].Details)
	}
}

// FuzzParseLedger: any bytes parse without a panic, and every entry read
// back re-encodes to a line that parses to the same entry.
func FuzzParseLedger(f *testing.F) {
	f.Add([]byte(`{"ts":"2026-11-21T10:04:11Z","session":"s","action":"created","title":"x"}` + "\n"))
	f.Add([]byte("\n\n{\"ts\":\"2026-11-21T10:04:11Z\",\"action\":\"commented\",\"text\":\"a\\nb\"}\r\n{broken"))
	f.Add([]byte(`{"ts":"2026-11-21T10:04:11+02:00","session":"s","action":"approved","reason":"r","type":"security","n":1.5,"o":{"a":[1,2]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _ := ParseLedger(data)
		for _, e := range entries {
			line, err := e.Line()
			if err != nil {
				t.Fatalf("re-encode %+v: %v", e, err)
			}
			again, errs := ParseLedger(line)
			if len(errs) != 0 || len(again) != 1 {
				t.Fatalf("re-encoded line %q does not parse: %v", line, errs)
			}
			line2, _ := again[0].Line()
			if string(line2) != string(line) {
				t.Fatalf("not stable:\n%s%s", line, line2)
			}
		}
	})
}

func TestEntryChange(t *testing.T) {
	for _, tt := range []struct {
		details            map[string]any
		text, fields, link string
	}{
		{map[string]any{"text": "looks good"}, "looks good", "", ""},
		{map[string]any{"text": "", "fields": []any{"title", "priority"}}, "", "title, priority", ""},
		{map[string]any{"kind": "child_of", "to": "td-k3x9qa"}, "", "", "child_of td-k3x9qa"},
		{map[string]any{"kind": "child_of"}, "", "", ""},
		{map[string]any{"fields": []any{}}, "", "", ""},
		{nil, "", "", ""},
	} {
		text, fields, link := Entry{Details: tt.details}.Change()
		if text != tt.text || strings.Join(fields, ", ") != tt.fields || link != tt.link {
			t.Errorf("Change of %v = %q, %q, %q; want %q, %q, %q", tt.details, text, fields, link, tt.text, tt.fields, tt.link)
		}
	}
}
