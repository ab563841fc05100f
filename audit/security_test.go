package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var secTS = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// appendEvent chains e onto file the way td writes it and returns the new
// file and the line written.
func appendEvent(t testing.TB, file []byte, e SecurityEvent) ([]byte, []byte) {
	t.Helper()
	e, err := NextSecurityEvent(file, e)
	if err != nil {
		t.Fatalf("next event: %v", err)
	}
	line, err := e.Line()
	if err != nil {
		t.Fatalf("line: %v", err)
	}
	out := append(bytes.Clone(file), line...)
	return append(out, '\n'), line
}

// chain builds a file of the given events and returns it with its lines.
func chain(t testing.TB, file []byte, evs ...SecurityEvent) ([]byte, [][]byte) {
	t.Helper()
	var lines [][]byte
	for _, e := range evs {
		var line []byte
		file, line = appendEvent(t, file, e)
		lines = append(lines, line)
	}
	return file, lines
}

func join(lines ...[]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return b
}

func ev(min int, kind, issue, reason string) SecurityEvent {
	return SecurityEvent{TS: secTS.Add(time.Duration(min) * time.Minute), IssueID: issue, SessionID: "ses_a1b2c3d4", Agent: "agent-1", Kind: kind, Reason: reason}
}

func hashOfLine(t testing.TB, line []byte) string {
	t.Helper()
	evs, errs := ParseSecurityEvents(line)
	if len(errs) != 0 || len(evs) != 1 {
		t.Fatalf("parse %s: %v", line, errs)
	}
	return evs[0].Hash
}

func TestSecurityEventLine(t *testing.T) {
	e := SecurityEvent{TS: secTS, IssueID: "td-a1b2", SessionID: "ses_a1b2c3d4", Agent: "agent-1",
		Kind: KindCreatorApproval, Reason: "sole maintainer <on call> & away"}
	line, err := e.Line()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"ts":"2026-11-21T10:00:00Z","issue_id":"td-a1b2","session_id":"ses_a1b2c3d4","agent":"agent-1","kind":"creator_approval_exception","reason":"sole maintainer <on call> & away","prev":""}`
	sum := sha256.Sum256([]byte(body))
	want := strings.TrimSuffix(body, "}") + `,"hash":"` + hex.EncodeToString(sum[:]) + `"}`
	if string(line) != want {
		t.Fatalf("line:\n got %s\nwant %s", line, want)
	}
	e.Hash = "stale"
	if again, _ := e.Line(); string(again) != want {
		t.Fatalf("a stale Hash leaked into the line: %s", again)
	}
}

func TestSecurityEventLineRefusesWhatCannotBeWritten(t *testing.T) {
	ok := ev(0, KindSelfClose, "td-a1b2", "r")
	tests := []struct {
		name string
		edit func(*SecurityEvent)
		want string
		// nextSets is true when NextSecurityEvent replaces the bad field.
		nextSets bool
	}{
		{"no time", func(e *SecurityEvent) { e.TS = time.Time{} }, "no time", false},
		{"year beyond RFC 3339", func(e *SecurityEvent) { e.TS = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }, "outside the years", false},
		{"year before RFC 3339", func(e *SecurityEvent) { e.TS = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }, "outside the years", false},
		{"no kind", func(e *SecurityEvent) { e.Kind = "" }, "no kind", false},
		{"prev not a hash", func(e *SecurityEvent) { e.Prev = "abc" }, "prev", true},
		{"prev in upper case", func(e *SecurityEvent) { e.Prev = strings.Repeat("A", 64) }, "prev", true},
		{"invalid UTF-8", func(e *SecurityEvent) { e.Reason = "a\xffb" }, "reason is not valid UTF-8", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ok
			tt.edit(&e)
			if _, err := e.Line(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Line() error = %v, want one mentioning %q", err, tt.want)
			}
			if _, err := NextSecurityEvent(nil, e); (err == nil) != tt.nextSets {
				t.Fatalf("NextSecurityEvent error = %v", err)
			}
		})
	}
}

func TestNextSecurityEvent(t *testing.T) {
	first, err := NextSecurityEvent(nil, SecurityEvent{TS: secTS.Add(1500 * time.Millisecond).In(time.FixedZone("x", 3600)), Kind: KindFeatureFlag, Prev: strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	if first.Prev != "" {
		t.Fatalf("genesis prev = %q, want empty", first.Prev)
	}
	if !first.TS.Equal(secTS.Add(time.Second)) || first.TS.Location() != time.UTC {
		t.Fatalf("ts = %v, want whole seconds in UTC", first.TS)
	}
	line, _ := first.Line()
	if got := hashOfLine(t, line); got != first.Hash {
		t.Fatalf("hash %s, line says %s", first.Hash, got)
	}
	parsed, _ := ParseSecurityEvents(line)
	if parsed[0] != first {
		t.Fatalf("the event read back differs:\n got %+v\nwant %+v", parsed[0], first)
	}

	// The last readable line is the one chained to; a torn tail is skipped.
	file := append(join(line), "{\"ts\":\"2026-11-21T10:0\r\n\n"...)
	second, err := NextSecurityEvent(file, ev(5, KindSelfClose, "td-a1b2", "r"))
	if err != nil {
		t.Fatal(err)
	}
	if second.Prev != first.Hash {
		t.Fatalf("prev = %q, want %q", second.Prev, first.Hash)
	}
}

func TestParseSecurityEventsReportsBadLines(t *testing.T) {
	file, lines := chain(t, nil, ev(0, KindCreatorApproval, "td-a1b2", "r1"), ev(1, KindSelfClose, "td-a1b2", "r2"))
	h := hashOfLine(t, lines[0])
	bad := []string{
		"not json",
		`{"ts":"yesterday","kind":"k","prev":"","hash":"` + h + `"}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"","prev":"","hash":"` + h + `"}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"k","prev":"","hash":"` + strings.ToUpper(h) + `"}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"k","prev":"x","hash":"` + h + `"}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"k","prev":"","hash":"` + h + `","extra":1}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"k","prev":"","hash":"` + h + `"} {}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":"k","prev":""}`,
		`{"ts":"2026-11-21T10:00:00Z","kind":5,"prev":"","hash":"` + h + `"}`,
	}
	data := append(append([]byte("\n"), file...), strings.Join(bad, "\n")...)
	evs, errs := ParseSecurityEvents(data)
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2", len(evs))
	}
	if len(errs) != len(bad) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(bad), errs)
	}
	for i, le := range errs {
		if le.Line != 4+i {
			t.Errorf("error %d on line %d, want %d: %v", i, le.Line, 4+i, le)
		}
	}
}

func TestVerifySecurityEvents(t *testing.T) {
	file, l := chain(t, nil,
		ev(0, KindCreatorApproval, "td-a1b2", "lead review"),
		ev(1, KindSelfClose, "td-a1b2", "solo project"),
		ev(2, KindFeatureFlag, "", "flag self_close on"),
	)
	h := func(line []byte) string { return short(hashOfLine(t, line)) }

	// Line 2 with its reason edited and its hash computed afresh.
	evs, _ := ParseSecurityEvents(l[1])
	forged := evs[0]
	forged.Reason = "lead review"
	rehashed, err := forged.Line()
	if err != nil {
		t.Fatal(err)
	}
	evs, _ = ParseSecurityEvents(l[2])
	forgedLast := evs[0]
	forgedLast.Reason = "flag self_close off"
	rehashedLast, err := forgedLast.Line()
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(l[1], []byte("solo project"), []byte("lead reviewd"), 1)
	reordered := bytes.Replace(l[0], []byte(`"issue_id":"td-a1b2","session_id":"ses_a1b2c3d4"`), []byte(`"session_id":"ses_a1b2c3d4","issue_id":"td-a1b2"`), 1)
	spaced := bytes.Replace(l[0], []byte(`","`), []byte(`", "`), 1)

	tests := []struct {
		name          string
		current, base []byte
		want          []string // each a prefix of the problem at the same index
	}{
		{"valid chain of 3", file, nil, nil},
		{"valid chain against itself", file, file, nil},
		{"valid chain against a shorter base", file, join(l[0], l[1]), nil},
		{"empty file", nil, nil, nil},
		{"edited reason", join(l[0], edited, l[2]), nil,
			[]string{"line 2: hash does not match the line's content (edited after it was written?)"}},
		{"edited reason against base", join(l[0], edited, l[2]), file, []string{
			"line 2: hash does not match the line's content (edited after it was written?)",
			"base line 2 (self_close_exception at 2026-11-21T10:01:00Z) was altered on line 2",
		}},
		{"edited line with recomputed hash", join(l[0], rehashed, l[2]), nil,
			[]string{"line 3: prev " + h(l[1]) + " names no event in the file (a line before it was deleted?)"}},
		{"edited line with recomputed hash against base", join(l[0], rehashed, l[2]), file, []string{
			"line 3: prev " + h(l[1]) + " names no event in the file",
			"base line 2 (self_close_exception at 2026-11-21T10:01:00Z) was altered and re-hashed on line 2",
		}},
		{"edited last line with recomputed hash goes unseen without a base", join(l[0], l[1], rehashedLast), nil, nil},
		{"edited last line with recomputed hash against a base", join(l[0], l[1], rehashedLast), file,
			[]string{"base line 3 (feature_flag_changed at 2026-11-21T10:02:00Z) was altered and re-hashed on line 3"}},
		{"deleted middle line", join(l[0], l[2]), nil,
			[]string{"line 2: prev " + h(l[1]) + " names no event in the file (a line before it was deleted?)"}},
		{"deleted first line", join(l[1], l[2]), nil,
			[]string{"line 1: prev " + h(l[0]) + " names no event"}},
		{"deleted last line goes unseen without a base", join(l[0], l[1]), nil, nil},
		{"deleted last line against a base", join(l[0], l[1]), file,
			[]string{"base line 3 (feature_flag_changed at 2026-11-21T10:02:00Z) is missing"}},
		{"deleted middle line against a base", join(l[0], l[2]), file, []string{
			"line 2: prev " + h(l[1]) + " names no event",
			"base line 2 (self_close_exception at 2026-11-21T10:01:00Z) is missing",
		}},
		// A union merge after a squash merge writes a line twice: it is one
		// event, against a base or not; an edit or a deletion is still one.
		{"duplicate line", join(l[0], l[1], l[1], l[2]), nil, nil},
		{"duplicate lines after a merge-back, against a base", join(l[0], l[1], l[2], l[1], l[2]), file, nil},
		{"duplicate line with CRLF", join(l[0], l[1], append(slices.Clone(l[1]), '\r'), l[2]), file, nil},
		{"duplicate kept, original deleted", join(l[0], l[2], l[1]), file, nil},
		{"duplicated, then a line deleted", join(l[0], l[1], l[0], l[1]), file,
			[]string{"base line 3 (feature_flag_changed at 2026-11-21T10:02:00Z) is missing"}},
		{"duplicated, then a copy edited", join(l[0], l[1], l[2], edited), file, []string{
			"line 4: hash does not match the line's content",
			"line 4: carries the hash of line 2 (" + h(l[1]) + ") over different content",
		}},
		{"edited copy of a line", join(l[0], l[1], edited, l[2]), nil, []string{
			"line 3: hash does not match the line's content",
			"line 3: carries the hash of line 2 (" + h(l[1]) + ") over different content",
		}},
		{"garbage line", join(l[0], []byte("<<<<<<< HEAD"), l[1], l[2]), nil,
			[]string{"line 2: not a security event: "}},
		{"garbage in base is still required", file, join([]byte("garbage"), l[0]),
			[]string{"base line 1 is missing"}},
		{"CRLF line endings", bytes.ReplaceAll(file, []byte("\n"), []byte("\r\n")), nil, nil},
		{"CRLF against an LF base", bytes.ReplaceAll(file, []byte("\n"), []byte("\r\n")), join(l[0], l[1]), nil},
		{"LF against a CRLF base", file, bytes.ReplaceAll(file, []byte("\n"), []byte("\r\n")), nil},
		{"blank lines and no final newline", append(append([]byte("\n\n"), join(l[0], nil, l[1])...), l[2]...), nil, nil},
		{"keys reordered", join(reordered, l[1], l[2]), nil,
			[]string{"line 1: the line is not written the way td writes events (rewritten by hand?)"}},
		{"space added", join(spaced, l[1], l[2]), nil,
			[]string{"line 1: the line is not written the way td writes events"}},
		{"keys reordered against base", join(reordered, l[1], l[2]), file, []string{
			"line 1: the line is not written the way td writes events",
			"base line 1 (creator_approval_exception at 2026-11-21T10:00:00Z) was altered on line 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkProblems(t, VerifySecurityEvents(tt.current, tt.base), tt.want)
		})
	}
}

func checkProblems(t *testing.T, got []Problem, want []string) {
	t.Helper()
	var ss []string
	for _, p := range got {
		ss = append(ss, p.String())
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(ss[i], want[i])
	}
	if !ok {
		t.Fatalf("problems:\n got %q\nwant %q", ss, want)
	}
}

// Two branches each append two events to the same base; git's union merge
// keeps the lines of both, in either order.
func TestVerifySecurityEventsUnionMerge(t *testing.T) {
	base, _ := chain(t, nil, ev(0, KindCreatorApproval, "td-a1b2", "r0"), ev(1, KindSelfClose, "td-a1b2", "r1"))
	ours, o := chain(t, base, ev(2, KindSelfClose, "td-c3d4", "ours 1"), ev(3, KindFeatureFlag, "", "ours 2"))
	theirs, th := chain(t, base, ev(2, KindProvenanceConflict, "td-e5f6", "theirs 1"), ev(4, KindCreatorApproval, "td-e5f6", "theirs 2"))

	merges := map[string][]byte{
		"ours then theirs": append(append(bytes.Clone(ours), th[0]...), append([]byte("\n"), append(th[1], '\n')...)...),
		"theirs then ours": append(append(bytes.Clone(theirs), o[0]...), append([]byte("\n"), append(o[1], '\n')...)...),
	}
	all := splitLines(merges["ours then theirs"])
	var reversed [][]byte
	for i := len(all) - 1; i >= 0; i-- {
		reversed = append(reversed, all[i].raw)
	}
	merges["every line reversed"] = join(reversed...)

	for name, merged := range merges {
		if n := len(splitLines(merged)); n != 6 {
			t.Fatalf("%s: merged file has %d lines, want 6", name, n)
		}
		for baseName, b := range map[string][]byte{"no base": nil, "common base": base, "our branch": ours, "their branch": theirs} {
			t.Run(name+"/"+baseName, func(t *testing.T) {
				checkProblems(t, VerifySecurityEvents(merged, b), nil)
			})
		}
		t.Run(name+"/appended after the merge", func(t *testing.T) {
			next, _ := appendEvent(t, merged, ev(9, KindSelfClose, "td-a1b2", "after merge"))
			checkProblems(t, VerifySecurityEvents(next, merged), nil)
			checkProblems(t, VerifySecurityEvents(next, ours), nil)
		})
		t.Run(name+"/losing a branch's last line", func(t *testing.T) {
			lost := bytes.Replace(merged, append(bytes.Clone(th[1]), '\n'), nil, 1)
			checkProblems(t, VerifySecurityEvents(lost, nil), nil)
			checkProblems(t, VerifySecurityEvents(lost, theirs),
				[]string{"base line 4 (creator_approval_exception at 2026-11-21T10:04:00Z) is missing"})
		})
	}
}

// FuzzSecurityEvents: any bytes parse and verify without a panic; a file
// verified against itself loses no base line; every event read back that can
// be written again reads back the same.
func FuzzSecurityEvents(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, _ := ParseSecurityEvents(data)
		for _, p := range VerifySecurityEvents(data, data) {
			if p.Line == 0 {
				t.Fatalf("a file verified against itself lost a base line: %s", p)
			}
		}
		VerifySecurityEvents(data, nil)
		for _, e := range evs {
			line, err := e.Line()
			if err != nil {
				continue
			}
			again, errs := ParseSecurityEvents(line)
			if len(errs) != 0 || len(again) != 1 {
				t.Fatalf("re-encoded line %q does not parse: %v", line, errs)
			}
			want := e
			want.TS = e.TS.Truncate(time.Second) // a line holds whole seconds
			want.Hash = again[0].Hash
			if again[0] != want {
				t.Fatalf("not stable:\n got %+v\nwant %+v", again[0], want)
			}
			if probs := VerifySecurityEvents(line, nil); e.Prev == "" && len(probs) != 0 {
				t.Fatalf("a genesis line td wrote does not verify: %v", probs)
			}
		}
	})
}

// Unix seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the times
// RFC 3339 can write.
const (
	minRFC3339Unix = -62167219200
	maxRFC3339Unix = 253402300799
)

// FuzzVerifySecurityEvents: a chain td builds from any fields verifies
// clean, stays clean as the base of itself with one more event appended, and
// losing any line but the last is detected.
func FuzzVerifySecurityEvents(f *testing.F) {
	f.Fuzz(func(t *testing.T, ts int64, issue, session, agent, kind, reasons string, n, del uint8) {
		span := uint64(maxRFC3339Unix - minRFC3339Unix - 300)
		start := time.Unix(minRFC3339Unix+int64(uint64(ts)%span), 0).UTC()
		if start.IsZero() {
			start = start.Add(time.Second)
		}
		issue, session, agent, kind = valid(issue), valid(session), valid(agent), valid(kind)
		if kind == "" {
			kind = KindCreatorApproval
		}
		rs := strings.Split(valid(reasons), "|")
		count := 2 + int(n%7)

		var file []byte
		var lines [][]byte
		for i := 0; i < count; i++ {
			e := SecurityEvent{TS: start.Add(time.Duration(i) * time.Second), IssueID: issue, SessionID: session, Agent: agent, Kind: kind, Reason: rs[i%len(rs)]}
			var line []byte
			file, line = appendEvent(t, file, e)
			lines = append(lines, line)
		}
		checkProblems(t, VerifySecurityEvents(file, nil), nil)

		next, _ := appendEvent(t, file, SecurityEvent{TS: start.Add(time.Hour), IssueID: issue, SessionID: session, Agent: agent, Kind: kind, Reason: rs[0]})
		checkProblems(t, VerifySecurityEvents(next, file), nil)

		// Any line arriving again, as a union merge after a squash merge
		// writes it, is the same event: the chain is intact, against the
		// base or not, and the events read once each.
		again := append(slices.Clone(lines), lines[int(del)%count])
		checkProblems(t, VerifySecurityEvents(join(again...), nil), nil)
		checkProblems(t, VerifySecurityEvents(join(again...), file), nil)
		if evs, _ := ParseSecurityEvents(join(again...)); len(evs) != count {
			t.Fatalf("a repeated line reads as %d events, want %d", len(evs), count)
		}

		d := int(del) % (count - 1)
		var kept [][]byte
		kept = append(kept, lines[:d]...)
		kept = append(kept, lines[d+1:]...)
		if probs := VerifySecurityEvents(join(kept...), nil); len(probs) == 0 {
			t.Fatalf("deleting line %d of %d went unseen:\n%s", d+1, count, file)
		}
		if probs := VerifySecurityEvents(join(kept...), file); len(probs) < 2 {
			t.Fatalf("deleting line %d of %d against a base: %v", d+1, count, probs)
		}
	})
}

func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func ExampleVerifySecurityEvents() {
	e, _ := NextSecurityEvent(nil, SecurityEvent{TS: secTS, IssueID: "td-a1b2", Kind: KindSelfClose, Reason: "solo project"})
	line, _ := e.Line()
	file := append(line, '\n')
	forged := bytes.Replace(file, []byte("solo project"), []byte("lead approved"), 1)
	for _, p := range VerifySecurityEvents(forged, nil) {
		fmt.Println(p)
	}
	for _, p := range VerifySecurityEvents(nil, file) {
		fmt.Println(p)
	}
	// Output:
	// line 1: hash does not match the line's content (edited after it was written?)
	// base line 1 (self_close_exception at 2026-11-21T10:00:00Z) is missing
}
