package sessions

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/people"
)

// When a handoff is written (its "at" detail).
const (
	// HandoffCompaction: the harness is about to summarise the
	// conversation; what the agent knew goes with the summary.
	HandoffCompaction = "compaction"
	// HandoffEnd: the conversation ended.
	HandoffEnd = "end"
)

// Handoff is a session's note on its bound issue for whoever continues
// it, in any harness: what was done, what is next, what is open. td
// writes it as a ledger entry (audit.ActionHandoff) when a harness
// compacts or ends the conversation; the next session's context starts
// from the latest one.
type Handoff struct {
	Issue   string
	Session string
	TS      time.Time
	// At is HandoffCompaction or HandoffEnd.
	At string
	// Done are the items finished, Next the one in progress and those
	// after it, Open what the next session must look at: blocked items,
	// the session's last error, the agent's last message.
	Done []string
	Next []string
	Open []string
	// More counts the finished items Done leaves out.
	More int
	Via  repo.Attribution
	// Who names the session for people, "" when its identity cannot be
	// read.
	Who string
}

// handoff bounds: a handoff is short, read at the top of a context.
const (
	handoffDone    = 5
	handoffNext    = 3
	handoffMessage = 300
)

// BuildHandoff writes the handoff of session se, bound to is with the
// runtime rt, at when; lastMessage is the agent's last message where its
// harness sent one.
func BuildHandoff(is *repo.Issue, se *repo.Session, rt *repo.Runtime, at, lastMessage string, now time.Time) *Handoff {
	h := &Handoff{Issue: is.ID, Session: se.ID, TS: now, At: at, Via: rt.Via}
	items := is.Checklist().Items()
	var done, active, steps, criteria []string
	for _, it := range items {
		switch it.Status {
		case domain.TodoCompleted:
			done = append(done, it.Text)
		case domain.TodoInProgress:
			active = append(active, it.Text)
		case domain.TodoPending:
			if it.Kind == domain.KindCriterion {
				criteria = append(criteria, it.Text)
			} else {
				steps = append(steps, it.Text)
			}
		case domain.TodoBlocked:
			open := "blocked: " + it.Text
			if n := len(it.Notes); n > 0 {
				open += " (" + strings.TrimPrefix(strings.TrimSpace(it.Notes[n-1]), "blocked: ") + ")"
			}
			h.Open = append(h.Open, open)
		}
	}
	h.Next = append(append(active, steps...), criteria...)
	if len(h.Next) > handoffNext {
		h.Next = h.Next[:handoffNext]
	}
	if len(done) > handoffDone {
		h.More = len(done) - handoffDone
		done = done[len(done)-handoffDone:]
	}
	h.Done = done
	if rt.LastError != "" && rt.SameErrorRun > 0 {
		open := "the last error: " + rt.LastError
		if rt.SameErrorRun > 1 {
			open += fmt.Sprintf(" (%d times in a row)", rt.SameErrorRun)
		}
		h.Open = append(h.Open, open)
	}
	for _, st := range policy.Stalls(rt.StallFacts()) {
		if st.Kind != policy.StallRepeatedError {
			h.Open = append(h.Open, "stalled: "+st.Message)
		}
	}
	if m := oneLine(lastMessage); m != "" {
		h.Open = append(h.Open, "the agent's last message: "+repo.Clip(m, handoffMessage))
	}
	return h
}

// oneLine folds text onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Entry is the handoff as its ledger entry.
func (h *Handoff) Entry() audit.Entry {
	d := map[string]any{"at": h.At}
	list := func(k string, v []string) {
		if len(v) > 0 {
			a := make([]any, len(v))
			for i, s := range v {
				a[i] = s
			}
			d[k] = a
		}
	}
	list("done", h.Done)
	list("next", h.Next)
	list("open", h.Open)
	if h.More > 0 {
		d["done_more"] = h.More
	}
	return audit.Entry{TS: h.TS, Session: h.Session, Action: audit.ActionHandoff, Details: d}
}

// HandoffOf reads a handoff entry of issue's ledger back.
func HandoffOf(issue string, e audit.Entry) *Handoff {
	if e.Action != audit.ActionHandoff {
		return nil
	}
	strs := func(k string) []string {
		var out []string
		if l, ok := e.Details[k].([]any); ok {
			for _, v := range l {
				if s, ok := v.(string); ok && s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	at, _ := e.Details["at"].(string)
	h := &Handoff{Issue: issue, Session: e.Session, TS: e.TS, At: at, Done: strs("done"), Next: strs("next"), Open: strs("open"),
		Via: repo.AttributionOf(e.Details)}
	switch n := e.Details["done_more"].(type) {
	case float64:
		h.More = int(n)
	case interface{ Int64() (int64, error) }:
		if v, err := n.Int64(); err == nil {
			h.More = int(v)
		}
	}
	return h
}

// same reports whether h says what o says, whenever and whoever wrote it.
func (h *Handoff) same(o *Handoff) bool {
	return o != nil && h.At == o.At && h.More == o.More && reflect.DeepEqual(h.Done, o.Done) &&
		reflect.DeepEqual(h.Next, o.Next) && reflect.DeepEqual(h.Open, o.Open)
}

// RecordHandoff writes session se's handoff on its bound issue at when,
// with the agent's last message where the harness sent one. A session
// bound to nothing, or to an issue that is gone or closed, writes none;
// nor does a handoff that says nothing (no checklist, no error, no
// message), or what the issue's latest one says. It
// returns the handoff written, nil for none.
func RecordHandoff(s *repo.Store, se *repo.Session, at, lastMessage string) (*Handoff, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil || rt.BoundIssue == "" {
		return nil, err
	}
	var out *Handoff
	err = s.Update(func(tx *repo.Tx) error {
		is, err := s.ReadIssueFile(rt.BoundIssue)
		if repo.CodeOf(err) == repo.CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if is.Status == domain.StatusClosed {
			return nil
		}
		h := BuildHandoff(is, se, rt, at, lastMessage, s.Now())
		if len(h.Done)+len(h.Next)+len(h.Open) == 0 {
			return nil // nothing to hand over
		}
		entries, _, err := s.Ledger(is.ID)
		if err != nil {
			return err
		}
		if h.same(LatestHandoff(is.ID, entries)) {
			return nil
		}
		if err := s.AppendLedger(tx, is.ID, h.Entry()); err != nil {
			return err
		}
		out = h
		return nil
	})
	return out, err
}

// LatestHandoff is the last handoff of an issue's ledger, nil for none.
func LatestHandoff(issue string, entries []audit.Entry) *Handoff {
	for i := len(entries) - 1; i >= 0; i-- {
		if h := HandoffOf(issue, entries[i]); h != nil {
			return h
		}
	}
	return nil
}

// Rejection is the review that sent an issue back: who rejected it,
// when, and why.
type Rejection struct {
	Issue   string
	Session string
	// Who names the session for people ("Lead Operator"), "" when its
	// identity cannot be read.
	Who    string
	TS     time.Time
	Reason string
}

// LatestRejection is the rejection an issue's ledger ends its last review
// with: nil when it was never rejected, or when it was submitted again,
// approved or closed since.
func LatestRejection(issue string, entries []audit.Entry) *Rejection {
	for i := len(entries) - 1; i >= 0; i-- {
		switch e := entries[i]; e.Action {
		case audit.ActionRejected:
			return &Rejection{Issue: issue, Session: e.Session, TS: e.TS, Reason: e.Reason}
		case audit.ActionSubmitted, audit.ActionApproved, audit.ActionClosed:
			return nil
		}
	}
	return nil
}

// issueNotes reads the handoff and the standing rejection from the
// issue's ledger, for a context block; a ledger td cannot read gives
// neither, with a warning.
func issueNotes(s *repo.Store, is *repo.Issue) (*Handoff, *Rejection, []string) {
	entries, errs, err := s.Ledger(is.ID)
	var warnings []string
	if err != nil {
		return nil, nil, []string{err.Error()}
	}
	for _, e := range errs {
		warnings = append(warnings, e.Error())
	}
	h, r := LatestHandoff(is.ID, entries), LatestRejection(is.ID, entries)
	if h != nil {
		h.Who = people.NameOf(s, h.Session)
	}
	if r != nil {
		r.Who = people.NameOf(s, r.Session)
	}
	return h, r, warnings
}
