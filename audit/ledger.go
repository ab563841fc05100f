// Package audit knows td's append-only logs: the per-issue ledger of
// significant events and the hash-chained security events. It
// encodes, decodes and verifies; the repo package does the file I/O.
package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sort"
	"time"
)

// Ledger actions.
const (
	ActionCreated            = "created"
	ActionEdited             = "edited"
	ActionCommented          = "commented"
	ActionStarted            = "started"
	ActionUnstarted          = "unstarted"
	ActionSubmitted          = "submitted"
	ActionApproved           = "approved"
	ActionRejected           = "rejected"
	ActionClosed             = "closed"
	ActionReopened           = "reopened"
	ActionBlocked            = "blocked"
	ActionUnblocked          = "unblocked"
	ActionBound              = "bound"
	ActionUnbound            = "unbound"
	ActionCriterionCompleted = "criterion_completed"
	ActionClosedAgainst      = "closed_against_criteria"
	ActionCriterionAdded     = "criterion_added"
	ActionCriterionDropped   = "criterion_dropped"
	ActionCriterionReopened  = "criterion_reopened"
	ActionLinked             = "linked"
	ActionUnlinked           = "unlinked"
	ActionTodoProposed       = "todo_proposed"
	ActionSublistAccepted    = "sublist_accepted"
	ActionSublistRejected    = "sublist_rejected"
	ActionAnchorAdded        = "anchor_added"
	ActionAnchorRemoved      = "anchor_removed"
	// ActionImported is an import's entry: it created or changed the
	// issue from another tracker (details imported_from, and to for the
	// status it set), or it is that tracker's history (details event,
	// author). Comments come in as ActionCommented with an author.
	ActionImported = "imported"
	// ActionReclaimed is td reclaim's entry: the session took over an
	// ended claim, and with it the work (details implementer from and to).
	ActionReclaimed = "reclaimed"
	// ActionHandoff is a session's note for whoever continues the issue,
	// written by td when its harness compacts the conversation or ends it
	// (details at, done, next, open): what was done, what is next, what is
	// open. It changes no status and no policy reads it.
	ActionHandoff = "handoff"
)

// statusActions are the actions that move an issue's status, and only
// they: their entries record the move as details from and to (an import's
// as to alone). Other entries may carry a "to" that is no status (a link's
// target issue, a reopened criterion's todo status, an edited field's new
// value), so a status is read only through Transition.
var statusActions = map[string]bool{
	ActionStarted: true, ActionUnstarted: true, ActionSubmitted: true,
	ActionApproved: true, ActionRejected: true, ActionClosed: true,
	ActionReopened: true, ActionBlocked: true, ActionUnblocked: true,
	ActionImported: true,
}

// MovesStatus reports whether entries of action are status transitions.
func MovesStatus(action string) bool { return statusActions[action] }

// StatusActions lists the actions MovesStatus accepts, sorted.
func StatusActions() []string {
	out := make([]string, 0, len(statusActions))
	for a := range statusActions {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Transition is the status move e records: the status it left ("" when
// the entry does not say, as an import's does not) and the one it reached.
// ok is false for every entry that moved no status: any action but the
// transitions, and a transition entry without a destination.
func (e Entry) Transition() (from, to string, ok bool) {
	if !statusActions[e.Action] {
		return "", "", false
	}
	to, _ = e.Details["to"].(string)
	if to == "" {
		return "", "", false
	}
	from, _ = e.Details["from"].(string)
	return from, to, true
}

// TypeSecurity marks a ledger entry that records a policy exception.
const TypeSecurity = "security"

// Entry is one line of an issue ledger: who did what, when. Details are
// flattened into the JSON object between action and reason.
type Entry struct {
	TS      time.Time
	Session string
	Action  string
	Details map[string]any
	Reason  string
	Type    string
}

// Change is what an entry says it changed, from its details: a comment's
// text, the names of the fields an edit changed, or a link as its kind and
// target ("child_of td-k3x9qa"). At most one is set; what a view prints
// of an entry besides who did what.
func (e Entry) Change() (text string, fields []string, link string) {
	if t, ok := e.Details["text"].(string); ok && t != "" {
		return t, nil, ""
	}
	if fs, ok := e.Details["fields"].([]any); ok && len(fs) > 0 {
		names := make([]string, len(fs))
		for i, f := range fs {
			names[i] = fmt.Sprint(f)
		}
		return "", names, ""
	}
	if kind, ok := e.Details["kind"].(string); ok {
		if to, ok := e.Details["to"].(string); ok {
			return "", nil, kind + " " + to
		}
	}
	return "", nil, ""
}

var reservedKeys = map[string]bool{"ts": true, "session": true, "action": true, "reason": true, "type": true}

// MarshalJSON writes ts, session, action, the details in key order, then
// reason and type when set: a stable shape that diffs well.
func (e Entry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(k string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %s: %w", k, err)
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
		return nil
	}
	if err := field("ts", e.TS.UTC().Format(time.RFC3339)); err != nil {
		return nil, err
	}
	field("session", e.Session)
	field("action", e.Action)
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		if !reservedKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := field(k, e.Details[k]); err != nil {
			return nil, err
		}
	}
	if e.Reason != "" {
		field("reason", e.Reason)
	}
	if e.Type != "" {
		field("type", e.Type)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an entry written by MarshalJSON or by hand.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return err
	}
	str := func(k string) string {
		s, _ := m[k].(string)
		delete(m, k)
		return s
	}
	ts := str("ts")
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return fmt.Errorf("ts %q is not an RFC 3339 time", ts)
	}
	// In UTC, which td writes, the year must still be one RFC 3339 can
	// write (0000-01-01T00:30+01:00 is in year -1), or the entry would not
	// read back.
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("ts %q falls in year %d in UTC, outside the years RFC 3339 can write", ts, y)
	}
	*e = Entry{TS: t.UTC(), Session: str("session"), Action: str("action"), Reason: str("reason"), Type: str("type")}
	if e.Action == "" {
		return fmt.Errorf("entry has no action")
	}
	if len(m) > 0 {
		e.Details = m
	}
	return nil
}

// Line encodes e as one ledger line, newline included.
func (e Entry) Line() ([]byte, error) {
	b, err := e.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// LineError is a ledger line that could not be read.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// RepeatKey is the detail td adds to an entry that would otherwise be the
// same line as one the ledger already holds (the same comment by the same
// session in the same second): 2 for the second such entry, 3 for the
// third. Identical lines are one entry to every reader, so two entries
// that really are two must differ.
const RepeatKey = "repeat"

// DistinctLine encodes e as a ledger line that held does not report as
// already written: e's own line when it is new, else that line with
// RepeatKey set to 2, 3 and so on until it is. held is asked about lines
// without their newline.
func DistinctLine(e Entry, held func(line []byte) bool) ([]byte, error) {
	line, err := e.Line()
	if err != nil || !held(line[:len(line)-1]) {
		return line, err
	}
	d := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		d[k] = v
	}
	e.Details = d
	for n := 2; ; n++ {
		d[RepeatKey] = n
		if line, err = e.Line(); err != nil || !held(line[:len(line)-1]) {
			return line, err
		}
	}
}

// HoldsLine reports whether the log data holds line (without its
// newline) as one of its lines, surrounding space aside.
func HoldsLine(data, line []byte) bool {
	if !bytes.Contains(data, line) {
		return false
	}
	for _, l := range splitLines(data) {
		if bytes.Equal(l.raw, line) {
			return true
		}
	}
	return false
}

// LedgerLine is one non-blank line of a ledger file as read.
type LedgerLine struct {
	// N is the 1-based line number; Text the line, surrounding space (and
	// a CRLF's carriage return) trimmed.
	N    int
	Text string
	// Entry is the line decoded; Err says why it could not be, nil when
	// it was.
	Entry Entry
	Err   *LineError
	// Repeat marks a line identical to an earlier one: the same entry
	// arrived twice. Git's union merge of ledgers writes one when a branch
	// that was squash-merged merges main back, or when two branches that
	// each merged main in land one after the other. A repeat is not a new
	// entry: ParseLedger leaves it out, and so does every reader.
	Repeat bool
}

// ReadLedgerLines reads every non-blank line of a ledger, repeats marked.
// Identity is the line's bytes: td writes an entry in one canonical form,
// and a union merge copies lines whole, so an entry that arrives twice is
// the same line twice.
func ReadLedgerLines(data []byte) []LedgerLine {
	lines := splitLines(data)
	out := make([]LedgerLine, 0, len(lines))
	var buf [8][]byte
	seen := newLineSet(len(lines), buf[:])
	for _, l := range lines {
		if len(l.raw) > MaxLineSize {
			out = append(out, LedgerLine{N: l.n, Text: string(l.raw[:200]) + "…", Err: tooLong(l)})
			continue
		}
		ll := LedgerLine{N: l.n, Text: string(l.raw)}
		if seen.add(l.raw) {
			ll.Repeat = true
		} else if err := json.Unmarshal(l.raw, &ll.Entry); err != nil {
			ll.Err = &LineError{Line: l.n, Msg: err.Error()}
		}
		out = append(out, ll)
	}
	return out
}

// MaxLineSize bounds one line of a ledger: an entry holds a comment or a
// reason at most, far below it. A longer line is reported as bad and never
// decoded, so that a ledger of one line under the file's size cap (64 MiB)
// does not cost several times its size in memory to read.
const MaxLineSize = 1 << 20

// tooLong is the error of a line over MaxLineSize.
func tooLong(l rawLine) *LineError {
	return &LineError{Line: l.n, Msg: fmt.Sprintf("the line is %d bytes, over the %d a ledger entry may take", len(l.raw), MaxLineSize)}
}

// ParseLedger decodes a ledger file: its entries, each once. Blank lines
// and repeats (ReadLedgerLines) are skipped; a bad line is reported with
// its number and the rest are still returned.
func ParseLedger(data []byte) ([]Entry, []*LineError) {
	var out []Entry
	var errs []*LineError
	var buf [8][]byte
	seen := newLineSet(0, buf[:])
	for _, l := range splitLines(data) {
		if len(l.raw) > MaxLineSize {
			errs = append(errs, tooLong(l))
			continue
		}
		if seen.add(l.raw) {
			continue
		}
		var e Entry
		if err := json.Unmarshal(l.raw, &e); err != nil {
			errs = append(errs, &LineError{Line: l.n, Msg: err.Error()})
			continue
		}
		out = append(out, e)
	}
	return out, errs
}

// UniqueLines returns the non-blank lines of an append-only log, trimmed,
// each once in the order of its first occurrence.
func UniqueLines(data []byte) []string {
	lines := splitLines(data)
	out := make([]string, 0, len(lines))
	var buf [8][]byte
	seen := newLineSet(len(lines), buf[:])
	for _, l := range lines {
		if !seen.add(l.raw) {
			out = append(out, string(l.raw))
		}
	}
	return out
}

// lineSet is a set of lines. Most ledgers hold a few lines, compared one
// by one; past smallSet of them the set keeps them by hash, since a map
// of strings would copy each.
type lineSet struct {
	small [][]byte
	m     map[uint64][][]byte
}

const smallSet = 32

// newLineSet is a set for about n lines, its first few kept in buf.
func newLineSet(n int, buf [][]byte) lineSet {
	if n > smallSet {
		return lineSet{m: make(map[uint64][][]byte, n)}
	}
	return lineSet{small: buf[:0]}
}

var lineSeed = maphash.MakeSeed()

// add adds line and reports whether the set held it already.
func (s *lineSet) add(line []byte) bool {
	if s.m == nil {
		for _, l := range s.small {
			if len(l) == len(line) && bytes.Equal(l, line) {
				return true
			}
		}
		if len(s.small) < smallSet {
			s.small = append(s.small, line)
			return false
		}
		s.m = make(map[uint64][][]byte, 2*smallSet)
		for _, l := range s.small {
			h := maphash.Bytes(lineSeed, l)
			s.m[h] = append(s.m[h], l)
		}
		s.small = nil
	}
	h := maphash.Bytes(lineSeed, line)
	for _, l := range s.m[h] {
		if bytes.Equal(l, line) {
			return true
		}
	}
	s.m[h] = append(s.m[h], line)
	return false
}
