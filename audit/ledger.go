// Package audit knows td's append-only logs: the per-issue ledger of
// significant events and the hash-chained security events. It
// encodes, decodes and verifies; the repo package does the file I/O.
package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
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
)

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

// ParseLedger decodes a ledger file. Blank lines are skipped; a bad line is
// reported with its number and the rest are still returned.
func ParseLedger(data []byte) ([]Entry, []*LineError) {
	var out []Entry
	var errs []*LineError
	for _, l := range splitLines(data) {
		var e Entry
		if err := json.Unmarshal(l.raw, &e); err != nil {
			errs = append(errs, &LineError{Line: l.n, Msg: err.Error()})
			continue
		}
		out = append(out, e)
	}
	return out, errs
}
