package review

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
)

// Sides of a merge, as a MergeOutcome names them: the first parent (the
// branch merged into) is ours, the second theirs.
const (
	SideOurs    = "ours"
	SideTheirs  = "theirs"
	SideNeither = "neither"
)

// Kinds of MergeOutcome.
const (
	// OutcomeResolved: both sides changed one thing differently, and the
	// merge kept one side's value (or a third).
	OutcomeResolved = "resolved"
	// OutcomeLost: one side changed a thing the other left alone, and the
	// merge does not have that change.
	OutcomeLost = "lost"
)

// MergeOutcome is what a merge commit made of one thing both of its
// parents' histories touched, or of one change it left out: the account
// td log gives of a merge, which the ledger (merged by union, so holding
// both sides' entries) cannot give.
type MergeOutcome struct {
	// Kind is OutcomeResolved or OutcomeLost.
	Kind string `json:"kind"`
	// What names the thing: "priority", `todo "Login button"`.
	What string `json:"what"`
	// Kept is the side whose value the merge has, SideNeither for a
	// value neither side had; for OutcomeLost it is the other side.
	Kept string `json:"kept"`
	// Value is the merge's value; Ours and Theirs the sides' values
	// (a side that left the thing alone has the base's value).
	Value  string `json:"value"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
	// Lost is the change the merge left out, for OutcomeLost.
	Lost *IssueEvent `json:"lost,omitempty"`

	key string // the facet, to leave out of the commit's plain changes
	// lostBy is each side's change the merge does not have, by side.
	lostBy map[string]IssueEvent
}

// String is the outcome in one clause: `resolved: priority P1 (theirs)
// over P3 (ours)`, `lost from theirs: label added: ui`.
func (o MergeOutcome) String() string {
	if o.Kind == OutcomeLost {
		return fmt.Sprintf("lost from %s: %s", otherSide(o.Kept), o.Lost)
	}
	if o.What == EventDescription {
		switch o.Kept {
		case SideNeither:
			return "resolved: description rewritten, over both sides' edits"
		case SideOurs:
			return "resolved: description as ours edited it, over theirs' edit"
		}
		return "resolved: description as theirs edited it, over ours' edit"
	}
	if o.Kept == SideNeither {
		return fmt.Sprintf("resolved: %s %s over %s (ours) and %s (theirs)", o.What, o.Value, o.Ours, o.Theirs)
	}
	loser, lost := SideTheirs, o.Theirs
	if o.Kept == SideTheirs {
		loser, lost = SideOurs, o.Ours
	}
	return fmt.Sprintf("resolved: %s %s (%s) over %s (%s)", o.What, o.Value, o.Kept, lost, loser)
}

func otherSide(side string) string {
	if side == SideOurs {
		return SideTheirs
	}
	return SideOurs
}

// DescribeMerge compares a merge's result with its two parents' versions
// of an issue file and their merge base's: for each thing both sides
// changed differently, which value the merge kept; for each change one
// side made that the merge does not have, that it was lost. Things only
// one side changed and the merge took are not outcomes: they are the
// merge's plain changes. It returns nil when the base has no such file or
// a version cannot be read, since then there is no three-way account to
// give.
func DescribeMerge(base, ours, theirs, merged []byte) []MergeOutcome {
	if base == nil || ours == nil || theirs == nil || merged == nil {
		return nil
	}
	var ev [3][]IssueEvent
	var desc [4]string
	for i, side := range [][]byte{ours, theirs, merged, base} {
		is, err := parseIssueBytes(side)
		if err != nil {
			return nil
		}
		desc[i] = is.Description()
		if i < 3 {
			ev[i], _ = DescribeIssueChange(base, side)
		}
	}
	byKey := func(events []IssueEvent) (map[string]IssueEvent, []string) {
		m, order := map[string]IssueEvent{}, []string(nil)
		for _, e := range events {
			k := facetKey(e)
			if _, ok := m[k]; !ok {
				order = append(order, k)
			}
			m[k] = e
		}
		return m, order
	}
	o, oOrder := byKey(ev[0])
	t, tOrder := byKey(ev[1])
	m, _ := byKey(ev[2])
	keys := oOrder
	for _, k := range tOrder {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out []MergeOutcome
	for _, k := range keys {
		eo, inO := o[k]
		et, inT := t[k]
		em, inM := m[k]
		if k == EventDescription {
			// The event carries no text: compare the texts.
			if r, ok := describeDescriptions(desc); ok {
				out = append(out, r)
			}
			continue
		}
		switch {
		case inO && inT && eo == et:
			// Both sides made the same change.
		case inO && inT:
			r := MergeOutcome{Kind: OutcomeResolved, key: k, What: facetWords(eo), Ours: facetValue(eo, false), Theirs: facetValue(et, false)}
			switch {
			case inM && em == eo:
				r.Kept, r.Value = SideOurs, r.Ours
				r.lostBy = map[string]IssueEvent{SideTheirs: et}
			case inM && em == et:
				r.Kept, r.Value = SideTheirs, r.Theirs
				r.lostBy = map[string]IssueEvent{SideOurs: eo}
			case inM:
				r.Kept, r.Value = SideNeither, facetValue(em, false)
				r.lostBy = map[string]IssueEvent{SideOurs: eo, SideTheirs: et}
			default:
				r.Kept, r.Value = SideNeither, facetValue(eo, true)
				r.lostBy = map[string]IssueEvent{SideOurs: eo, SideTheirs: et}
			}
			out = append(out, r)
		case inO && !(inM && em == eo):
			lost := eo
			out = append(out, MergeOutcome{Kind: OutcomeLost, key: k, What: facetWords(eo), Kept: SideTheirs,
				Ours: facetValue(eo, false), Theirs: facetValue(eo, true), Value: mergedValue(em, inM, eo), Lost: &lost,
				lostBy: map[string]IssueEvent{SideOurs: eo}})
		case inT && !(inM && em == et):
			lost := et
			out = append(out, MergeOutcome{Kind: OutcomeLost, key: k, What: facetWords(et), Kept: SideOurs,
				Ours: facetValue(et, true), Theirs: facetValue(et, false), Value: mergedValue(em, inM, et), Lost: &lost,
				lostBy: map[string]IssueEvent{SideTheirs: et}})
		}
	}
	return out
}

// describeDescriptions is the outcome for the description, given the
// texts of ours, theirs, the merge and the base, if there is one.
func describeDescriptions(d [4]string) (MergeOutcome, bool) {
	o, t, m, b := d[0], d[1], d[2], d[3]
	r := MergeOutcome{What: EventDescription, key: EventDescription, Ours: "ours' text", Theirs: "theirs' text"}
	switch {
	case o == t:
		return r, false
	case o != b && t != b:
		r.Kind = OutcomeResolved
		ev := IssueEvent{Kind: EventDescription}
		switch m {
		case o:
			r.Kept, r.Value = SideOurs, r.Ours
			r.lostBy = map[string]IssueEvent{SideTheirs: ev}
		case t:
			r.Kept, r.Value = SideTheirs, r.Theirs
			r.lostBy = map[string]IssueEvent{SideOurs: ev}
		default:
			r.Kept, r.Value = SideNeither, "a text of its own"
			r.lostBy = map[string]IssueEvent{SideOurs: ev, SideTheirs: ev}
		}
		return r, true
	case o != b && m != o:
		r.Kind, r.Kept, r.Lost = OutcomeLost, SideTheirs, &IssueEvent{Kind: EventDescription}
		r.lostBy = map[string]IssueEvent{SideOurs: *r.Lost}
		return r, true
	case t != b && m != t:
		r.Kind, r.Kept, r.Lost = OutcomeLost, SideOurs, &IssueEvent{Kind: EventDescription}
		r.lostBy = map[string]IssueEvent{SideTheirs: *r.Lost}
		return r, true
	}
	return r, false
}

// mergedValue is the merge's value of a facet: em's, or the base's (the
// side's event's old value) when the merge left it as the base had it.
func mergedValue(em IssueEvent, inM bool, side IssueEvent) string {
	if inM {
		return facetValue(em, false)
	}
	return facetValue(side, true)
}

// facetKey names the one thing an event changes, so that the events of
// two versions against one base can be matched: a field, a label, a link,
// a checklist item.
func facetKey(e IssueEvent) string {
	switch {
	case e.IsItem():
		family := TodoPrefix
		if e.IsCriterion() {
			family = CriterionPrefix
		}
		return family + "\x00" + e.Phase + "\x00" + e.Text
	case e.Kind == EventLabelAdded || e.Kind == EventLabelGone:
		return "label\x00" + e.Text
	case e.Kind == EventLinkAdded || e.Kind == EventLinkGone:
		return "link\x00" + e.Link + "\x00" + e.Text
	case e.Kind == EventClosed || e.Kind == EventReopened || e.Kind == EventStatus:
		return EventStatus
	}
	return e.Kind
}

// facetWords names the thing an event changes, for a sentence.
func facetWords(e IssueEvent) string {
	switch {
	case e.IsItem():
		noun := "todo"
		if e.IsCriterion() {
			noun = "criterion"
		}
		s := fmt.Sprintf("%s %q", noun, e.Text)
		if e.Phase != "" {
			s += " [" + e.Phase + "]"
		}
		return s
	case e.Kind == EventLabelAdded || e.Kind == EventLabelGone:
		return "label " + e.Text
	case e.Kind == EventLinkAdded || e.Kind == EventLinkGone:
		return "link " + e.Link + " " + e.Text
	case e.Kind == EventClosed || e.Kind == EventReopened:
		return EventStatus
	}
	return e.Kind
}

// facetValue is the value an event leaves the thing with, or (before)
// the value it found.
func facetValue(e IssueEvent, before bool) string {
	v := e.To
	if before {
		v = e.From
	}
	switch {
	case e.IsItem():
		if v == "" {
			return "absent"
		}
		return v
	case e.Kind == EventLabelAdded || e.Kind == EventLinkAdded:
		return presence(!before)
	case e.Kind == EventLabelGone || e.Kind == EventLinkGone:
		return presence(before)
	case e.Kind == EventClosed:
		if before {
			return orNone(e.From)
		}
		if e.To != "" {
			return "closed (" + e.To + ")"
		}
		return "closed"
	case e.Kind == EventTitle:
		return fmt.Sprintf("%q", v)
	case e.Kind == EventDescription:
		if before {
			return "as it was"
		}
		return "edited"
	}
	return orNone(v)
}

func presence(present bool) string {
	if present {
		return "present"
	}
	return "absent"
}

// describeMergeCommit gives a merge commit's account of the issue file:
// the outcomes of DescribeMerge against its first two parents and their
// merge base, and the ledger lines (by ledgerKey) that a side added since
// the base recording a change the merge lost. A merge of more than two
// parents, or one whose parents share no history, gets none.
func describeMergeCommit(g *gitrepo.Repo, c *gitrepo.Commit, file, ledger string) ([]MergeOutcome, []string, error) {
	if len(c.Parents) != 2 {
		return nil, nil, nil
	}
	base, err := g.MergeBase(c.Parents[0], c.Parents[1])
	if errors.Is(err, gitrepo.ErrNoMergeBase) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var v [4][]byte
	for i, rev := range []string{base, c.Parents[0], c.Parents[1], c.Hash} {
		if _, v[i], err = fileVersions(g, "", rev, file); err != nil {
			return nil, nil, err
		}
	}
	outcomes := DescribeMerge(v[0], v[1], v[2], v[3])
	var lost []string
	for i, side := range []string{SideOurs, SideTheirs} {
		var events []IssueEvent
		for _, o := range outcomes {
			if e, ok := o.lostBy[side]; ok {
				events = append(events, e)
			}
		}
		if len(events) == 0 {
			continue
		}
		before, after, err := fileVersions(g, base, c.Parents[i], ledger)
		if err != nil {
			return nil, nil, err
		}
		// A line the other side holds as well is an entry both sides
		// made (a squash merge copied it to one of them): the other side
		// had that change and moved on from it, so it was not lost here.
		_, other, err := fileVersions(g, "", c.Parents[1-i], ledger)
		if err != nil {
			return nil, nil, err
		}
		both := map[string]bool{}
		for _, l := range audit.UniqueLines(other) {
			both[l] = true
		}
		var delta LogCommit
		delta.ledgerDelta(before, after)
		for _, e := range delta.ledgerLines {
			line, err := e.MarshalJSON()
			if err == nil && both[string(line)] {
				continue
			}
			if slices.ContainsFunc(events, func(ev IssueEvent) bool { return ledgerRecords(e, ev) }) {
				lost = append(lost, ledgerKey(e))
			}
		}
	}
	return outcomes, lost, nil
}

// ledgerRecords reports whether ledger entry e records the change ev: an
// edit of that field to that value, a status move to that status, a
// criterion completed, dropped or reopened to that status.
func ledgerRecords(e audit.Entry, ev IssueEvent) bool {
	to := func(d any) (string, bool) {
		m, ok := d.(map[string]any)
		if !ok {
			return "", false
		}
		v, ok := m["to"]
		return fmt.Sprint(v), ok
	}
	switch {
	case ev.IsCriterion():
		if text, _ := e.Details["text"].(string); text != ev.Text {
			return false
		}
		switch e.Action {
		case audit.ActionCriterionCompleted:
			return ev.To == string(domain.TodoCompleted)
		case audit.ActionCriterionDropped:
			return ev.To == string(domain.TodoAbandoned)
		case audit.ActionCriterionReopened:
			v, _ := e.Details["to"].(string)
			return v == ev.To
		}
		return false
	case ev.IsItem():
		return false
	case facetKey(ev) == EventStatus:
		want := ev.To
		if ev.Kind == EventClosed {
			want = string(domain.StatusClosed)
		}
		_, to, ok := e.Transition()
		return ok && to == want
	case ev.Kind == EventDescription:
		fields, _ := e.Details["fields"].([]any)
		return e.Action == audit.ActionEdited && slices.ContainsFunc(fields, func(f any) bool { return f == EventDescription })
	}
	if e.Action != audit.ActionEdited {
		return false
	}
	v, ok := to(e.Details[ev.Kind])
	return ok && v == ev.To
}

// mergeSummary is the outcomes as clauses of a commit's summary.
func mergeSummary(outcomes []MergeOutcome) string {
	parts := make([]string, len(outcomes))
	for i, o := range outcomes {
		parts[i] = o.String()
	}
	return strings.Join(parts, "; ")
}
