package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Security event kinds.
const (
	KindCreatorApproval    = "creator_approval_exception"
	KindSelfClose          = "self_close_exception"
	KindFeatureFlag        = "feature_flag_changed"
	KindProvenanceConflict = "provenance_conflict"
	// KindOpenCriteriaOverride is an operator closing an issue as done
	// while acceptance criteria are still open.
	KindOpenCriteriaOverride = "open_criteria_override"
	// KindOperatorAdded and KindOperatorRemoved are an operator changing
	// the operators: list of config.yaml with td operator add and rm.
	KindOperatorAdded   = "operator_added"
	KindOperatorRemoved = "operator_removed"
	// KindClaimReclaimed is td reclaim taking over an issue's claim whose
	// lease had ended, from the session that held it.
	KindClaimReclaimed = "claim_reclaimed"
	// KindAgentClose is an agent closing an issue as done with td close:
	// a sign-off without td review's request and an approval, so every
	// one is on the record.
	KindAgentClose = "agent_closed_as_done"
)

// SecurityEvent is one line of security_events.jsonl: a policy exception or
// a security-relevant change, chained to the event before it by Prev so
// that a deleted or edited line can be detected.
type SecurityEvent struct {
	TS        time.Time
	IssueID   string
	SessionID string
	Agent     string
	Kind      string
	Reason    string
	// Prev is the Hash of the file's last line when this event was
	// written, or "" for the first event (genesis).
	Prev string
	// Hash is the lowercase hex SHA-256 of the line's canonical encoding
	// without the hash field.
	Hash string
}

// securityWire is the line's JSON shape; its field order is the key order
// of the canonical encoding, which the hash covers.
type securityWire struct {
	TS        string `json:"ts"`
	IssueID   string `json:"issue_id"`
	SessionID string `json:"session_id"`
	Agent     string `json:"agent"`
	Kind      string `json:"kind"`
	Reason    string `json:"reason"`
	Prev      string `json:"prev"`
	Hash      string `json:"hash,omitempty"`
}

// encode writes w as compact JSON without HTML escaping and without the
// encoder's trailing newline.
func (w securityWire) encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// body checks e's fields and returns its canonical encoding without the
// hash field: the bytes the hash covers.
func (e SecurityEvent) body() ([]byte, error) {
	if e.TS.IsZero() {
		return nil, errors.New("security event has no time")
	}
	if y := e.TS.UTC().Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("security event time falls in year %d, outside the years RFC 3339 can write", y)
	}
	if e.Kind == "" {
		return nil, errors.New("security event has no kind")
	}
	if e.Prev != "" && !isHash(e.Prev) {
		return nil, fmt.Errorf("prev %q is not 64 lowercase hex digits", e.Prev)
	}
	for _, f := range []struct{ name, v string }{
		{"issue_id", e.IssueID}, {"session_id", e.SessionID}, {"agent", e.Agent},
		{"kind", e.Kind}, {"reason", e.Reason},
	} {
		// JSON would silently replace invalid bytes, so the line would not
		// say what the caller asked it to.
		if !utf8.ValidString(f.v) {
			return nil, fmt.Errorf("security event %s is not valid UTF-8", f.name)
		}
	}
	b, err := e.wire().encode()
	if err != nil {
		return nil, fmt.Errorf("encode security event: %w", err)
	}
	return b, nil
}

// wire is e's JSON shape without the hash.
func (e SecurityEvent) wire() securityWire {
	return securityWire{
		TS:        e.TS.UTC().Format(time.RFC3339),
		IssueID:   e.IssueID,
		SessionID: e.SessionID,
		Agent:     e.Agent,
		Kind:      e.Kind,
		Reason:    e.Reason,
		Prev:      e.Prev,
	}
}

func hashOf(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Line encodes e as one line of security_events.jsonl, without the newline.
// The hash field is computed from the other fields; e.Hash is ignored.
func (e SecurityEvent) Line() ([]byte, error) {
	body, err := e.body()
	if err != nil {
		return nil, err
	}
	w := e.wire()
	w.Hash = hashOf(body)
	return w.encode()
}

// MarshalJSON gives the event the same field names and order as its line
// in security_events.jsonl, hash included as stored, for --json output.
func (e SecurityEvent) MarshalJSON() ([]byte, error) {
	w := e.wire()
	w.Hash = e.Hash
	return w.encode()
}

// NextSecurityEvent returns e ready to append to the file whose content is
// existing: Prev names the last readable line's hash ("" if there is none),
// TS is cut to whole seconds in UTC, and Hash is computed.
func NextSecurityEvent(existing []byte, e SecurityEvent) (SecurityEvent, error) {
	e.Prev = ""
	recs, _ := parseSecurity(existing)
	if len(recs) > 0 {
		e.Prev = recs[len(recs)-1].ev.Hash
	}
	e.TS = e.TS.UTC().Truncate(time.Second)
	body, err := e.body()
	if err != nil {
		return SecurityEvent{}, err
	}
	e.Hash = hashOf(body)
	return e, nil
}

// securityRecord is a readable line with its number and its bytes, which
// verification needs beside the decoded event.
type securityRecord struct {
	line int
	raw  []byte
	ev   SecurityEvent
}

// rawLine is one non-blank line of a file, surrounding space (and so a
// CRLF's carriage return) trimmed.
type rawLine struct {
	n   int
	raw []byte
}

func splitLines(data []byte) []rawLine {
	var out []rawLine
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			out = append(out, rawLine{n, line})
		}
	}
	return out
}

// decodeSecurityLine reads one line strictly: unknown fields and trailing
// data are refused, since the hash would not cover them.
func decodeSecurityLine(line []byte) (SecurityEvent, error) {
	var w securityWire
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return SecurityEvent{}, fmt.Errorf("not a security event: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return SecurityEvent{}, errors.New("not a security event: data follows the JSON object")
	}
	t, err := time.Parse(time.RFC3339, w.TS)
	if err != nil {
		return SecurityEvent{}, fmt.Errorf("ts %q is not an RFC 3339 time", w.TS)
	}
	if w.Kind == "" {
		return SecurityEvent{}, errors.New("security event has no kind")
	}
	if w.Prev != "" && !isHash(w.Prev) {
		return SecurityEvent{}, fmt.Errorf("prev %q is not 64 lowercase hex digits", w.Prev)
	}
	if !isHash(w.Hash) {
		return SecurityEvent{}, fmt.Errorf("hash %q is not 64 lowercase hex digits", w.Hash)
	}
	return SecurityEvent{
		TS: t.UTC(), IssueID: w.IssueID, SessionID: w.SessionID, Agent: w.Agent,
		Kind: w.Kind, Reason: w.Reason, Prev: w.Prev, Hash: w.Hash,
	}, nil
}

// parseSecurity reads the file's lines, each once: a line identical to an
// earlier one is the same event arrived twice (a union merge after a
// squash merge writes one), not a second event. Two events td wrote can
// never be one line, since each names the hash of the line before it.
func parseSecurity(data []byte) ([]securityRecord, []*LineError) {
	var recs []securityRecord
	var errs []*LineError
	var buf [8][]byte
	seen := newLineSet(0, buf[:])
	for _, l := range splitLines(data) {
		if seen.add(l.raw) {
			continue
		}
		ev, err := decodeSecurityLine(l.raw)
		if err != nil {
			errs = append(errs, &LineError{Line: l.n, Msg: err.Error()})
			continue
		}
		recs = append(recs, securityRecord{l.n, l.raw, ev})
	}
	return recs, errs
}

// ParseSecurityEvents decodes security_events.jsonl. Blank lines and
// repeats of an earlier line are skipped; a bad line is reported with its 1-based number and the rest are
// still returned, in file order. Parsing does not check hashes: that is
// VerifySecurityEvents' work.
func ParseSecurityEvents(data []byte) ([]SecurityEvent, []*LineError) {
	recs, errs := parseSecurity(data)
	var out []SecurityEvent
	for _, r := range recs {
		out = append(out, r.ev)
	}
	return out, errs
}

// LinedEvent is a security event with the 1-based line it is on and the
// line's text, surrounding space trimmed.
type LinedEvent struct {
	Line  int
	Text  string
	Event SecurityEvent
}

// LinedSecurityEvents parses the readable events of a security events file
// with their lines; unreadable lines are left out (ParseSecurityEvents
// reports them).
func LinedSecurityEvents(data []byte) []LinedEvent {
	recs, _ := parseSecurity(data)
	out := make([]LinedEvent, 0, len(recs))
	for _, r := range recs {
		out = append(out, LinedEvent{Line: r.line, Text: string(r.raw), Event: r.ev})
	}
	return out
}

// Problem is one finding of VerifySecurityEvents. Line is the 1-based line
// of the current file it concerns, or 0 for a file-level problem such as a
// base line gone missing.
type Problem struct {
	Line int
	Msg  string
}

// String reads as one sentence, prefixed by the line when there is one.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return p.Msg
}

// VerifySecurityEvents checks the security events file current and, when
// base is not nil, that it still holds every line of base, the same file at
// an earlier revision. It reports lines that do not parse, hashes that do
// not match their line, lines not in the canonical encoding, a hash
// carried by two different lines, prev values naming no event in the file,
// and base lines missing or altered. After a union merge the events form a
// DAG, so two lines may share a prev and a prev may name a later line; and
// a line may appear twice (a branch squash-merged, then merged with main
// again): that is one event, not a problem.
//
// Without a base, deleting a line that no other line names as prev (the
// last line, or the last line a merged branch added) cannot be detected:
// that is what verifying against a base revision is for.
func VerifySecurityEvents(current, base []byte) []Problem {
	var probs []Problem
	recs, errs := parseSecurity(current)
	for _, le := range errs {
		probs = append(probs, Problem{le.Line, le.Msg})
	}

	byHash := make(map[string]securityRecord, len(recs))
	for _, r := range recs {
		body, err := r.ev.body()
		if err != nil {
			probs = append(probs, Problem{r.line, err.Error()})
		} else if hashOf(body) != r.ev.Hash {
			probs = append(probs, Problem{r.line, "hash does not match the line's content (edited after it was written?)"})
		} else if line, _ := r.ev.Line(); !bytes.Equal(line, r.raw) {
			probs = append(probs, Problem{r.line, "the line is not written the way td writes events (rewritten by hand?)"})
		}
		if first, dup := byHash[r.ev.Hash]; dup {
			// parseSecurity read an identical line once: this one differs.
			probs = append(probs, Problem{r.line, fmt.Sprintf("carries the hash of line %d (%s) over different content", first.line, short(r.ev.Hash))})
			continue
		}
		byHash[r.ev.Hash] = r
	}
	for _, r := range recs {
		if r.ev.Prev != "" {
			if _, ok := byHash[r.ev.Prev]; !ok {
				probs = append(probs, Problem{r.line, fmt.Sprintf("prev %s names no event in the file (a line before it was deleted?)", short(r.ev.Prev))})
			}
		}
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })

	if base != nil {
		probs = append(probs, compareBase(recs, byHash, current, base)...)
	}
	return probs
}

// compareBase reports every line of base that current no longer holds
// byte for byte. recs and byHash are current's readable lines, the latter
// keyed by the first line holding each hash.
func compareBase(recs []securityRecord, byHash map[string]securityRecord, current, base []byte) []Problem {
	present := make(map[string]bool)
	for _, l := range splitLines(current) {
		present[string(l.raw)] = true
	}
	baseLines := splitLines(base)
	inBase := make(map[string]bool, len(baseLines))
	for _, l := range baseLines {
		inBase[string(l.raw)] = true
	}
	type identity struct{ ts, kind, issue, session string }
	byIdentity := make(map[identity]securityRecord)
	for _, r := range recs {
		id := identity{r.ev.TS.Format(time.RFC3339), r.ev.Kind, r.ev.IssueID, r.ev.SessionID}
		if _, ok := byIdentity[id]; !ok && !inBase[string(r.raw)] {
			byIdentity[id] = r
		}
	}

	var probs []Problem
	for _, l := range baseLines {
		if present[string(l.raw)] {
			continue
		}
		ev, err := decodeSecurityLine(l.raw)
		if err != nil {
			probs = append(probs, Problem{0, fmt.Sprintf("base line %d is missing", l.n)})
			continue
		}
		what := fmt.Sprintf("base line %d (%s at %s)", l.n, ev.Kind, ev.TS.Format(time.RFC3339))
		if r, ok := byHash[ev.Hash]; ok {
			probs = append(probs, Problem{0, fmt.Sprintf("%s was altered on line %d", what, r.line)})
			continue
		}
		// A line edited and re-hashed shares neither bytes nor hash with the
		// original; its time, kind, issue and session still identify it
		// among the lines base did not have.
		if r, ok := byIdentity[identity{ev.TS.Format(time.RFC3339), ev.Kind, ev.IssueID, ev.SessionID}]; ok {
			probs = append(probs, Problem{0, fmt.Sprintf("%s was altered and re-hashed on line %d", what, r.line)})
			continue
		}
		probs = append(probs, Problem{0, what + " is missing"})
	}
	return probs
}

// isHash reports whether s is 64 lowercase hex digits, a SHA-256 in the form
// td writes it.
func isHash(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// short abbreviates a hash for a message.
func short(h string) string {
	if len(h) > 8 {
		return h[:8] + "…"
	}
	return h
}
