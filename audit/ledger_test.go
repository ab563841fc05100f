package audit

import (
	"bytes"
	"runtime"
	"slices"
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
		entries, errs := ParseLedger(data)
		// The whole file arriving twice, as a union merge can write it, is
		// the same ledger: each entry once, each bad line reported once.
		twice, twiceErrs := ParseLedger(slices.Concat(data, []byte("\n"), data))
		if len(twice) != len(entries) || len(twiceErrs) != len(errs) {
			t.Fatalf("doubled file: %d entries and %d errors, want %d and %d", len(twice), len(twiceErrs), len(entries), len(errs))
		}
		for i := range entries {
			a, _ := entries[i].Line()
			b, _ := twice[i].Line()
			if string(a) != string(b) {
				t.Fatalf("doubled file, entry %d: %s, want %s", i, b, a)
			}
		}
		// ReadLedgerLines marks as repeats exactly the lines ParseLedger
		// leaves out, and its other readable lines are ParseLedger's.
		var read []Entry
		for _, l := range ReadLedgerLines(data) {
			if !l.Repeat && l.Err == nil {
				read = append(read, l.Entry)
			}
		}
		if len(read) != len(entries) {
			t.Fatalf("ReadLedgerLines has %d entries, ParseLedger %d", len(read), len(entries))
		}
		for i := range read {
			a, _ := read[i].Line()
			b, _ := entries[i].Line()
			if string(a) != string(b) {
				t.Fatalf("entry %d: ReadLedgerLines %s, ParseLedger %s", i, a, b)
			}
		}
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

// TestTransition: only the actions that move a status yield one, whatever
// "to" and "from" other entries carry (a link's target issue, a reopened
// criterion's todo status, an edited field's values).
func TestTransition(t *testing.T) {
	moves := map[string]bool{
		ActionStarted: true, ActionUnstarted: true, ActionSubmitted: true, ActionApproved: true,
		ActionRejected: true, ActionClosed: true, ActionReopened: true, ActionBlocked: true,
		ActionUnblocked: true, ActionImported: true,
	}
	all := []string{
		ActionCreated, ActionEdited, ActionCommented, ActionStarted, ActionUnstarted, ActionSubmitted,
		ActionApproved, ActionRejected, ActionClosed, ActionReopened, ActionBlocked, ActionUnblocked,
		ActionBound, ActionUnbound, ActionCriterionCompleted, ActionClosedAgainst, ActionCriterionAdded,
		ActionCriterionDropped, ActionCriterionReopened, ActionLinked, ActionUnlinked, ActionTodoProposed,
		ActionSublistAccepted, ActionSublistRejected, ActionAnchorAdded, ActionAnchorRemoved, ActionImported,
		KindCreatorApproval, KindSelfClose, KindOpenCriteriaOverride, KindProvenanceConflict,
	}
	if got := StatusActions(); len(got) != len(moves) {
		t.Fatalf("StatusActions() = %v, want the %d of the table", got, len(moves))
	}
	statuses := []string{"open", "in_progress", "blocked", "in_review", "closed"}
	for _, action := range all {
		if MovesStatus(action) != moves[action] {
			t.Errorf("MovesStatus(%s) = %v, want %v", action, !moves[action], moves[action])
		}
		// Every from and to, as td writes them: a transition is read
		// exactly when the action moves a status.
		for _, from := range append([]string{""}, statuses...) {
			for _, to := range append(statuses, "td-k3x9qa", "pending") {
				d := map[string]any{"to": to}
				if from != "" {
					d["from"] = from
				}
				gotFrom, gotTo, ok := Entry{Action: action, Details: d}.Transition()
				if ok != moves[action] {
					t.Fatalf("%s from %q to %q: ok = %v, want %v", action, from, to, ok, moves[action])
				}
				if ok && (gotFrom != from || gotTo != to) {
					t.Fatalf("%s from %q to %q: read %q -> %q", action, from, to, gotFrom, gotTo)
				}
				if !ok && (gotFrom != "" || gotTo != "") {
					t.Fatalf("%s: no transition, yet %q -> %q", action, gotFrom, gotTo)
				}
			}
		}
		// A transition action with no destination moved nothing; neither
		// does a link's kind and target read as one.
		if _, _, ok := (Entry{Action: action, Details: map[string]any{"text": "x"}}).Transition(); ok {
			t.Errorf("%s with no to: read as a transition", action)
		}
		if _, _, ok := (Entry{Action: action}).Transition(); ok {
			t.Errorf("%s with no details: read as a transition", action)
		}
	}
}

func TestReadLedgerLinesMarksRepeats(t *testing.T) {
	a := `{"ts":"2026-11-21T10:00:00Z","session":"s","action":"created"}`
	b := `{"ts":"2026-11-21T10:01:00Z","session":"s","action":"commented","text":"x"}`
	c := `{"ts":"2026-11-21T10:02:00Z","session":"s","action":"commented","text":"x","repeat":2}`
	data := []byte(a + "\n" + b + "\n\nnot json\n" + b + "\r\n  " + a + "\n" + c + "\nnot json\n")
	lines := ReadLedgerLines(data)
	type row struct {
		n      int
		repeat bool
		bad    bool
	}
	want := []row{{1, false, false}, {2, false, false}, {4, false, true}, {5, true, false}, {6, true, false}, {7, false, false}, {8, true, false}}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l.N != w.n || l.Repeat != w.repeat || (l.Err != nil) != w.bad {
			t.Errorf("line %d: got n=%d repeat=%v err=%v, want %+v", i, l.N, l.Repeat, l.Err, w)
		}
	}
	entries, errs := ParseLedger(data)
	if len(entries) != 3 || len(errs) != 1 || errs[0].Line != 4 {
		t.Fatalf("ParseLedger: %d entries, errors %v; want 3 entries and line 4", len(entries), errs)
	}
	if entries[2].Details[RepeatKey] == nil {
		t.Fatalf("the disambiguated entry lost its repeat detail: %+v", entries[2])
	}
	if got := UniqueLines(data); len(got) != 4 || got[0] != a || got[1] != b || got[2] != "not json" || got[3] != c {
		t.Fatalf("UniqueLines = %q", got)
	}
}

func TestDistinctLine(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	e := Entry{TS: ts, Session: "s", Action: ActionCommented, Details: map[string]any{"text": "x"}}
	plain, _ := e.Line()
	second, _ := Entry{TS: ts, Session: "s", Action: ActionCommented, Details: map[string]any{"text": "x", RepeatKey: 2}}.Line()
	third, _ := Entry{TS: ts, Session: "s", Action: ActionCommented, Details: map[string]any{"text": "x", RepeatKey: 3}}.Line()
	for _, c := range []struct {
		name string
		log  []byte
		want []byte
	}{
		{"a new entry", nil, plain},
		{"another entry's line", []byte(`{"ts":"2026-11-21T10:00:00Z","session":"s","action":"commented","text":"y"}` + "\n"), plain},
		{"the line is held", plain, second},
		{"held with CRLF and space", append([]byte("  "), bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))...), second},
		{"held twice over", slices.Concat(plain, second), third},
		{"a line that contains it is not it", append([]byte("x"), plain...), plain},
	} {
		got, err := DistinctLine(e, func(l []byte) bool { return HoldsLine(c.log, l) })
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %s (%v), want %s", c.name, got, err, c.want)
		}
	}
	if e.Details[RepeatKey] != nil {
		t.Error("DistinctLine changed the entry's details")
	}
}

// BenchmarkParseLedger reads a ledger of a typical size: td check reads
// 10,000 of them.
func BenchmarkParseLedger(b *testing.B) {
	var data []byte
	ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i := range 6 {
		line, _ := Entry{TS: ts.Add(time.Duration(i) * time.Minute), Session: "ses_eohe8m2y", Action: ActionCommented, Details: map[string]any{"text": "The callback must verify the state parameter."}}.Line()
		data = append(data, line...)
	}
	b.ReportAllocs()
	for b.Loop() {
		ParseLedger(data)
	}
}

// TestLedgerLineOverTheLimit: a ledger of one line just under the file's
// cap (63 MiB) is one bad line, read without decoding it: the readers
// allocate little beyond the file itself.
func TestLedgerLineOverTheLimit(t *testing.T) {
	data := []byte(`{"ts":"2026-11-21T10:00:00Z","session":"ses_a","action":"commented","text":"` + strings.Repeat("a", 63<<20) + "\"}\n" +
		`{"ts":"2026-11-21T10:01:00Z","session":"ses_a","action":"commented","text":"short"}` + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	entries, errs := ParseLedger(data)
	lines := ReadLedgerLines(data)
	runtime.ReadMemStats(&after)
	if len(entries) != 1 || entries[0].Details["text"] != "short" || len(errs) != 1 || !strings.Contains(errs[0].Error(), "line 1: the line is 66060366 bytes, over the 1048576 a ledger entry may take") {
		t.Errorf("ParseLedger: %d entries, errors %v", len(entries), errs)
	}
	if len(lines) != 2 || lines[0].Err == nil || lines[1].Err != nil {
		t.Errorf("ReadLedgerLines: %+v", lines)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading a 63 MiB line allocated %d bytes", alloc)
	}
}
