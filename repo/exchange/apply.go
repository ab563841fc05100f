package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"gopkg.in/yaml.v3"
)

// Frontmatter keys the import writes.
const (
	// KeyImportedFrom holds the source's ID of an imported issue.
	KeyImportedFrom = "imported_from"
	// KeyImported holds every source field td has no place for.
	KeyImported = "imported"
)

// Options says how Apply runs.
type Options struct {
	// DryRun plans the import and writes nothing.
	DryRun bool
	// SkipBad imports the good records of an input with bad ones.
	SkipBad bool
	// Progress, when set, hears how far the import is: done of total
	// steps (each record is planned, then written).
	Progress func(done, total int)
}

// Change is one issue an import creates, updates or finds unchanged.
type Change struct {
	// ID is the td issue; "" for a new issue in a dry run, which draws
	// no ID.
	ID     string `json:"id"`
	Source string `json:"source"`
	Title  string `json:"title"`
	// Fields are what an update changes, in the file or the ledger.
	Fields []string `json:"fields,omitempty"`
}

// Result is what an import did, or would do in a dry run.
type Result struct {
	DryRun    bool
	Created   []Change
	Updated   []Change
	Unchanged []Change
	// Skipped are the bad rows left out with SkipBad.
	Skipped  []BadInput
	Warnings []string
}

// BadInputError refuses an import whose input has rows td could not
// read: nothing is written.
type BadInputError struct {
	What string // the input, as named on the command line
	Bad  []BadInput
}

// Error lists the bad rows under one sentence saying nothing was imported.
func (e *BadInputError) Error() string {
	var b strings.Builder
	n := len(e.Bad)
	rows := "row"
	for _, b := range e.Bad {
		if b.At.Path != e.What {
			rows = "file" // a folder's files
		}
	}
	if n != 1 {
		rows += "s"
	}
	fmt.Fprintf(&b, "%d %s of %s could not be read, so nothing was imported; fix them, or pass --skip-bad to import the rest", n, rows, e.What)
	for _, x := range e.Bad {
		b.WriteString("\n" + x.String())
	}
	return b.String()
}

// ActionImported is the ledger action of an import (audit.ActionImported).
const ActionImported = audit.ActionImported

// planChunk is how many records are planned between two reports of
// progress.
const planChunk = 256

// writeChunk is how many writes go to the store in one WriteMany: the
// progress of a long import moves once per chunk.
const writeChunk = 512

// plan is one record's planned issue.
type plan struct {
	rec   *Record
	id    string
	isNew bool
	// links are the record's links as td links, resolved.
	links []domain.Link
	// standIn marks the stand-in ID of a new issue in a dry run.
	standIn bool
	data    []byte
	fields  []string
	ledger  []audit.Entry
}

// Apply imports the parsed records into the store in one transaction, as
// session se, which must be an operator's: the import writes issues and
// their history in other people's names. It refuses, writing nothing,
// when the input has bad rows, unless o.SkipBad.
func Apply(s *repo.Store, se *repo.Session, what string, p *Parsed, o Options) (*Result, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	if s.EffectiveRole(se) != domain.RoleOperator {
		return nil, repo.Errorf(repo.CodeRefused, "only an operator may import issues: an import writes issues and history in other people's names; run it from an operator's session")
	}
	res := &Result{DryRun: o.DryRun, Warnings: append([]string(nil), p.Warnings...)}
	recs, bad := uniqueSources(p.Records)
	bad = append(append([]BadInput(nil), p.Bad...), bad...)
	run := func(tx *repo.Tx) error {
		plans, more, err := planAll(s, se, recs, res, o)
		if err != nil {
			return err
		}
		bad = append(bad, more...)
		sortBad(bad)
		if len(bad) > 0 && !o.SkipBad {
			return refuseBad(what, bad)
		}
		res.Skipped = bad
		if tx == nil {
			return nil
		}
		return writePlans(tx, se, plans, o, len(recs))
	}
	if o.DryRun {
		return res, run(nil)
	}
	err := s.Update(run)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Precheck refuses an input with bad rows before anything else happens,
// so that a command can refuse it before it writes anything at all (the
// session it would act as, on first use). skipBad lets it through.
func Precheck(what string, p *Parsed, skipBad bool) error {
	_, dup := uniqueSources(p.Records)
	bad := append(append([]BadInput(nil), p.Bad...), dup...)
	if len(bad) == 0 || skipBad {
		return nil
	}
	sortBad(bad)
	return refuseBad(what, bad)
}

func refuseBad(what string, bad []BadInput) error {
	e := &BadInputError{What: what, Bad: bad}
	return &repo.Error{Code: repo.CodeParse, Msg: e.Error(), Err: e}
}

// uniqueSources keeps the first record of each source ID; a repeat is a
// bad row.
func uniqueSources(in []*Record) ([]*Record, []BadInput) {
	first := map[string]Position{}
	var out []*Record
	var bad []BadInput
	for _, r := range in {
		if at, ok := first[r.Source]; ok {
			bad = append(bad, BadInput{At: r.At, Reason: fmt.Sprintf("%s appears twice (first at %s)", r.Source, at)})
			continue
		}
		first[r.Source] = r.At
		out = append(out, r)
	}
	return out, bad
}

func sortBad(bad []BadInput) {
	sort.SliceStable(bad, func(i, j int) bool {
		if bad[i].At.Path != bad[j].At.Path {
			return bad[i].At.Path < bad[j].At.Path
		}
		return bad[i].At.Line < bad[j].At.Line
	})
}

// planAll decides each record's ID, renders its file and its ledger
// entries, and sorts it into created, updated or unchanged. Records it
// cannot render are returned as bad rows.
func planAll(s *repo.Store, se *repo.Session, recs []*Record, res *Result, o Options) ([]*plan, []BadInput, error) {
	existing, err := ImportedIndex(s)
	if err != nil {
		return nil, nil, err
	}
	total := 2 * len(recs)
	if o.DryRun {
		total = len(recs)
	}
	// IDs first, so that links between records resolve.
	ids := map[string]string{} // source -> td ID
	taken := map[string]bool{}
	// td's own export names link targets by their td ID there, which
	// may have become another ID here.
	byOldID := map[string]string{}
	plans := make([]*plan, 0, len(recs))
	for _, r := range recs {
		pl := &plan{rec: r}
		if id, ok := existing[r.Source]; ok {
			pl.id = id
		} else {
			pl.isNew = true
			if !o.DryRun {
				if pl.id, err = newID(s, r.ID, taken); err != nil {
					return nil, nil, err
				}
			} else {
				// A dry run draws no ID: a stand-in lets links resolve.
				pl.id, pl.standIn = fmt.Sprintf("new-%06d", len(plans)), true
			}
		}
		if pl.id != "" {
			taken[pl.id] = true
			ids[r.Source] = pl.id
			if r.ID != "" {
				byOldID[r.ID] = pl.id
			}
		}
		plans = append(plans, pl)
	}
	now := s.Now()
	var bad []BadInput
	out := plans[:0]
	// Rendering and reading back is most of the work and each record's
	// own: records are planned on every core, a chunk at a time so that
	// progress moves.
	type planned struct {
		err error
	}
	for _, pl := range plans {
		var warns []string
		pl.links, warns = resolveLinks(s, pl.rec, ids, byOldID, taken)
		res.Warnings = append(res.Warnings, warns...)
	}
	warns, err := dropCycles(s, plans)
	if err != nil {
		return nil, nil, err
	}
	res.Warnings = append(res.Warnings, warns...)
	results := make([]planned, len(plans))
	for lo := 0; lo < len(plans); lo += planChunk {
		hi := min(lo+planChunk, len(plans))
		repo.ForEach(hi-lo, runtime.GOMAXPROCS(0), 16, func(k int) {
			pl := plans[lo+k]
			var err error
			if pl.isNew {
				err = planNew(s, se, pl, pl.links, now)
			} else {
				err = planUpdate(s, se, pl, pl.links, now)
			}
			results[lo+k] = planned{err: err}
		})
		for i := lo; i < hi; i++ {
			pl, r := plans[i], results[i]
			var be *badRecord
			if errors.As(r.err, &be) {
				bad = append(bad, BadInput{At: pl.rec.At, Reason: be.reason})
				continue
			}
			if r.err != nil {
				return nil, nil, r.err
			}
			id := pl.id
			if pl.standIn {
				id = ""
			}
			ch := Change{ID: id, Source: pl.rec.Source, Title: pl.rec.Title, Fields: pl.fields}
			switch {
			case pl.isNew:
				res.Created = append(res.Created, ch)
			case pl.data == nil && len(pl.ledger) == 0:
				res.Unchanged = append(res.Unchanged, ch)
			default:
				res.Updated = append(res.Updated, ch)
			}
			out = append(out, pl)
		}
		if o.Progress != nil {
			o.Progress(hi, total)
		}
	}
	return out, bad, nil
}

// checkTexts refuses what td refuses from a person: a body, comment or
// label with control characters or bytes that are not UTF-8.
func checkTexts(r *Record, body string) error {
	if err := policy.CheckText("the body", body); err != nil {
		return badf("%v", err)
	}
	for _, ev := range r.Events {
		if err := policy.CheckText("a comment", ev.Text); err != nil {
			return badf("%v", err)
		}
	}
	for _, l := range r.Labels {
		if err := policy.CheckText("a label", l); err != nil {
			return badf("%v", err)
		}
	}
	return nil
}

// unreadChecklist says why a record whose checklist would not read back
// is refused.
const unreadChecklist = "its text runs on (an HTML block or a code fence that is never closed) and would hide the criteria and todos written after it; close it in the source"

// badRecord is a record that cannot become an issue file.
type badRecord struct{ reason string }

func (b *badRecord) Error() string { return b.reason }

func badf(format string, args ...any) error { return &badRecord{reason: fmt.Sprintf(format, args...)} }

// newID keeps want (td's own export) when it is a valid ID no file and no
// other record has, and otherwise draws a new one from the store's
// allocator, which never returns an ID a file has.
func newID(s *repo.Store, want string, taken map[string]bool) (string, error) {
	if want != "" && repo.ValidIssueID(want) && !taken[want] && !fileExists(s.IssuePath(want)) {
		return want, nil
	}
	for {
		id, err := s.NewIssueID()
		if err != nil {
			return "", err
		}
		if !taken[id] {
			return id, nil
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// resolveLinks turns a record's links into td links: a source ID names
// the record's issue, a td ID stands. A link to nothing either holds is
// kept under imported: with a warning.
func resolveLinks(s *repo.Store, r *Record, ids, byOldID map[string]string, taken map[string]bool) ([]domain.Link, []string) {
	var out []domain.Link
	var warns []string
	var unresolved []any
	self := ids[r.Source]
	for _, l := range r.Links {
		to, ok := ids[l.To]
		if !ok {
			to, ok = byOldID[l.To]
		}
		if !ok && repo.ValidIssueID(l.To) && (taken[l.To] || fileExists(s.IssuePath(l.To))) {
			to, ok = l.To, true
		}
		if !ok {
			warns = append(warns, fmt.Sprintf("%s: %s %s names an issue neither the input nor the repository holds; kept under %s:", r.At, l.Kind, l.To, KeyImported))
			unresolved = append(unresolved, map[string]any{"kind": string(l.Kind), "to": l.To})
			continue
		}
		if to == self || to == "" {
			continue
		}
		nl := domain.Link{Kind: l.Kind, To: to}
		if !slices.Contains(out, nl) {
			out = append(out, nl)
		}
	}
	if len(unresolved) > 0 {
		r.setExtra("unresolved_links", unresolved)
	}
	return out, warns
}

// dropCycles keeps the links td check would refuse out of the import: a
// child_of, blocked_by or duplicate_of that closes a cycle with the
// repository's links and the import's, and a second parent or original.
// Each is kept under imported: (dropped_links) with a warning.
func dropCycles(s *repo.Store, plans []*plan) ([]string, error) {
	need := false
	for _, pl := range plans {
		for _, l := range pl.links {
			need = need || policy.Acyclic(l.Kind)
		}
	}
	if !need {
		return nil, nil
	}
	type key struct {
		kind domain.LinkKind
		from string
	}
	next := map[key][]string{}
	has := func(kind domain.LinkKind, from, to string) bool { return slices.Contains(next[key{kind, from}], to) }
	add := func(kind domain.LinkKind, from, to string) {
		if !has(kind, from, to) {
			next[key{kind, from}] = append(next[key{kind, from}], to)
		}
	}
	all, _, err := s.LoadAll()
	if err != nil {
		return nil, err
	}
	for _, is := range all {
		for _, l := range is.Links {
			if policy.Acyclic(l.Kind) {
				add(l.Kind, is.ID, l.To)
			}
		}
	}
	// reaches reports whether to is reachable from from along kind.
	reaches := func(kind domain.LinkKind, from, to string) bool {
		seen := map[string]bool{from: true}
		queue := []string{from}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if n == to {
				return true
			}
			for _, m := range next[key{kind, n}] {
				if !seen[m] {
					seen[m] = true
					queue = append(queue, m)
				}
			}
		}
		return false
	}
	var warns []string
	for _, pl := range plans {
		kept := pl.links[:0]
		var dropped []any
		for _, l := range pl.links {
			if !policy.Acyclic(l.Kind) || has(l.Kind, pl.id, l.To) {
				kept = append(kept, l)
				continue
			}
			why := ""
			switch {
			case (l.Kind == domain.ChildOf || l.Kind == domain.DuplicateOf) && len(next[key{l.Kind, pl.id}]) > 0:
				why = fmt.Sprintf("a second %s (an issue has one)", l.Kind)
			case reaches(l.Kind, l.To, pl.id):
				why = "a link that would close a cycle"
			}
			if why != "" {
				warns = append(warns, fmt.Sprintf("%s: %s %s is %s; kept under %s: instead", pl.rec.At, l.Kind, l.To, why, KeyImported))
				dropped = append(dropped, map[string]any{"kind": string(l.Kind), "to": l.To})
				continue
			}
			add(l.Kind, pl.id, l.To)
			kept = append(kept, l)
		}
		pl.links = kept
		if len(dropped) > 0 {
			pl.rec.setExtra("dropped_links", dropped)
		}
	}
	return warns, nil
}

// planNew renders a new issue's file and ledger.
func planNew(s *repo.Store, se *repo.Session, pl *plan, links []domain.Link, now time.Time) error {
	r := pl.rec
	title, err := cleanTitle(r.Title)
	if err != nil {
		return err
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = now
	}
	updated := r.UpdatedAt
	if updated.IsZero() || updated.Before(created) {
		updated = created
	}
	createdBy := r.CreatedBy
	if createdBy == "" {
		createdBy = se.ID
	}
	is := &repo.Issue{Issue: domain.Issue{ID: pl.id, Title: title, Status: orStatus(r.Status), Type: orType(r.Type),
		Priority: orPriority(r.Priority), Minor: r.Minor, Labels: cleanLabels(r.Labels), CreatedBy: createdBy,
		Implementer: r.Implementer, Assignee: oneLine(r.Assignee), Resolution: r.Resolution, Links: nonNilLinks(links),
		CreatedAt: created, UpdatedAt: updated}}
	if is.Status != domain.StatusClosed {
		is.Resolution = ""
	} else if is.Resolution == "" {
		is.Resolution = domain.ResolutionDone
	}
	id := pl.id
	more, err := extraKeyValues(r)
	if err != nil {
		return err
	}
	body := []byte(renderBody(r))
	if err := checkTexts(r, string(body)); err != nil {
		return err
	}
	if !checklistReadsBack(r, body) {
		return badf(unreadChecklist)
	}
	doc, err := repo.BuildIssueDoc(is, body, more)
	if err != nil {
		return badf("%v", err)
	}
	data := doc.Bytes()
	if _, err := repo.ParseIssue(s.RelIssue(id), id, data); err != nil {
		return badf("td could not read back the issue it would write: %v", err)
	}
	pl.data = data
	details := map[string]any{"title": title, KeyImportedFrom: r.Source}
	pl.ledger = append(pl.ledger, audit.Entry{TS: now, Session: se.ID, Action: audit.ActionCreated, Details: details})
	pl.ledger = append(pl.ledger, eventEntries(se, r, nil)...)
	if is.Status != domain.StatusOpen {
		pl.ledger = append(pl.ledger, audit.Entry{TS: now, Session: se.ID, Action: ActionImported,
			Details: map[string]any{KeyImportedFrom: r.Source, "to": string(is.Status)}})
	}
	return nil
}

// planUpdate changes an issue an earlier import made into what the
// source says now: the fields the source has, the body, links added,
// history not seen before. Fields only td has (implementer, td's links,
// other keys) stay. Nothing changed, nothing is written.
func planUpdate(s *repo.Store, se *repo.Session, pl *plan, links []domain.Link, now time.Time) error {
	r := pl.rec
	is, err := s.ReadIssueFile(pl.id)
	if err != nil {
		return fmt.Errorf("%s, which %s was imported as: %w", pl.id, r.Source, err)
	}
	before := is.Doc.Bytes()
	title, err := cleanTitle(r.Title)
	if err != nil {
		return err
	}
	var fields []string
	set := func(name string, changed bool, v any) error {
		if !changed {
			return nil
		}
		fields = append(fields, name)
		return is.SetField(name, v)
	}
	status := orStatus(r.Status)
	res := r.Resolution
	if status != domain.StatusClosed {
		res = ""
	} else if res == "" {
		res = domain.ResolutionDone
	}
	labels := cleanLabels(r.Labels)
	merged := append([]domain.Link(nil), is.Links...)
	for _, l := range links {
		if !slices.Contains(merged, l) {
			merged = append(merged, l)
		}
	}
	oldStatus := is.Status
	for _, f := range []struct {
		name    string
		changed bool
		v       any
	}{
		{"title", title != is.Title, title},
		{"status", status != is.Status, string(status)},
		{"type", orType(r.Type) != is.Type, string(orType(r.Type))},
		{"priority", orPriority(r.Priority) != is.Priority, string(orPriority(r.Priority))},
		{"labels", !slices.Equal(labels, repo.NonNil(is.Labels)), labels},
		{"assignee", oneLine(r.Assignee) != is.Assignee, oneLine(r.Assignee)},
		{"resolution", res != is.Resolution, string(res)},
		{"links", len(merged) != len(is.Links), nonNilLinks(merged)},
	} {
		if err := set(f.name, f.changed, f.v); err != nil {
			return badf("%v", err)
		}
	}
	is.Title, is.Status, is.Resolution = title, status, res
	body := renderBody(r)
	if err := checkTexts(r, body); err != nil {
		return err
	}
	if !checklistReadsBack(r, []byte(body)) {
		return badf(unreadChecklist)
	}
	if body != string(is.Doc.Body) {
		is.Doc.Body = []byte(body)
		fields = append(fields, "body")
	}
	oldFront := string(is.Doc.Front.Bytes())
	if err := setExtraKeys(is.Doc.Front, r); err != nil {
		return err
	}
	if string(is.Doc.Front.Bytes()) != oldFront {
		fields = append(fields, KeyImported)
	}
	ledger, _, err := s.Ledger(pl.id)
	if err != nil {
		return err
	}
	events := eventEntries(se, r, ledger)
	if len(fields) == 0 && len(events) == 0 {
		return nil
	}
	if len(fields) > 0 {
		if err := is.SetField("updated_at", now); err != nil {
			return badf("%v", err)
		}
		data := is.Doc.Bytes()
		if bytes.Equal(data, before) {
			fields = nil
		} else {
			if _, err := repo.ParseIssue(s.RelIssue(pl.id), pl.id, data); err != nil {
				return badf("td could not read back the issue it would write: %v", err)
			}
			pl.data = data
		}
	}
	pl.ledger = events
	if len(fields) > 0 {
		d := map[string]any{KeyImportedFrom: r.Source, "fields": fields}
		if status != oldStatus {
			d["to"] = string(status)
		}
		pl.ledger = append(pl.ledger, audit.Entry{TS: now, Session: se.ID, Action: ActionImported, Details: d})
	}
	if len(events) > 0 {
		fields = append(fields, "history")
	}
	pl.fields = fields
	return nil
}

// extraKeys are the record's frontmatter keys beyond td's own: its other
// keys in name order, its source ID, and the fields td has no place for.
func extraKeys(r *Record) ([]string, map[string]any) {
	vals := map[string]any{}
	var keys []string
	for k, v := range r.Front {
		if k != KeyImportedFrom && k != KeyImported {
			keys = append(keys, k)
			vals[k] = v
		}
	}
	sort.Strings(keys)
	keys = append(keys, KeyImportedFrom)
	vals[KeyImportedFrom] = r.Source
	imported := map[string]any{}
	if m, ok := r.Front[KeyImported].(map[string]any); ok {
		for k, v := range m {
			imported[k] = v
		}
	} else if v, ok := r.Front[KeyImported]; ok && v != nil {
		imported["value"] = v
	}
	for k, v := range r.Extra {
		imported[k] = v
	}
	if len(imported) > 0 {
		keys = append(keys, KeyImported)
		vals[KeyImported] = imported
	}
	return keys, vals
}

// extraKeyValues are extraKeys as YAML, for a new file.
func extraKeyValues(r *Record) ([]markdown.KeyValue, error) {
	keys, vals := extraKeys(r)
	out := make([]markdown.KeyValue, 0, len(keys))
	for _, k := range keys {
		var n yaml.Node
		if s, ok := vals[k].(string); ok {
			out = append(out, markdown.KeyValue{Key: k, Value: markdown.Str(s)})
			continue
		}
		if err := n.Encode(vals[k]); err != nil {
			return nil, badf("%s cannot be written as YAML: %v", k, err)
		}
		out = append(out, markdown.KeyValue{Key: k, Value: &n})
	}
	return out, nil
}

// setExtraKeys writes extraKeys into an existing file's frontmatter,
// each only when its value changes.
func setExtraKeys(fm *markdown.Frontmatter, r *Record) error {
	keys, vals := extraKeys(r)
	for _, k := range keys {
		if s, ok := vals[k].(string); ok {
			if cur := fm.Node(k); cur != nil && cur.Kind == yaml.ScalarNode && cur.Value == s {
				continue
			}
			if err := fm.Set(k, markdown.Str(s)); err != nil {
				return badf("%v", err)
			}
			continue
		}
		if err := setAny(fm, k, vals[k]); err != nil {
			return err
		}
	}
	return nil
}

// setAny sets key to any JSON-like value (maps are written in key order).
func setAny(fm *markdown.Frontmatter, key string, v any) error {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return badf("%s cannot be written as YAML: %v", key, err)
	}
	if cur := fm.Node(key); cur != nil && sameYAML(cur, &n) {
		return nil
	}
	if err := fm.Set(key, &n); err != nil {
		return badf("%v", err)
	}
	return nil
}

// sameYAML reports whether two nodes decode to the same value.
func sameYAML(a, b *yaml.Node) bool {
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return false
	}
	xb, err1 := yaml.Marshal(x)
	yb, err2 := yaml.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(xb, yb)
}

// eventEntries are the ledger entries of the record's events that the
// ledger does not hold yet: comments as comments, the rest as history,
// each with its original author and time and the source it came from.
func eventEntries(se *repo.Session, r *Record, ledger []audit.Entry) []audit.Entry {
	have := map[string]bool{}
	for _, e := range ledger {
		if src, _ := e.Details[KeyImportedFrom].(string); src != "" {
			have[eventKey(e.TS, str(e.Details["author"]), str(e.Details["event"]), str(e.Details["text"]))] = true
		}
	}
	var out []audit.Entry
	for _, ev := range r.Events {
		kind := ev.Kind
		if kind == EventComment {
			kind = ""
		}
		at := ev.At.UTC().Truncate(time.Second)
		k := eventKey(at, ev.Author, kind, ev.Text)
		if have[k] {
			continue
		}
		have[k] = true
		d := map[string]any{KeyImportedFrom: r.Source}
		if ev.Author != "" {
			d["author"] = ev.Author
		}
		if ev.Text != "" {
			d["text"] = ev.Text
		}
		action := audit.ActionCommented
		if kind != "" {
			action = ActionImported
			d["event"] = kind
			if len(ev.Details) > 0 {
				d["details"] = ev.Details
			}
		}
		out = append(out, audit.Entry{TS: at, Session: se.ID, Action: action, Details: d})
	}
	return out
}

func eventKey(at time.Time, author, kind, text string) string {
	return at.UTC().Format(time.RFC3339) + "\x00" + author + "\x00" + kind + "\x00" + text
}

func str(v any) string { s, _ := v.(string); return s }

// writePlans writes every planned file and ledger entry, in chunks.
func writePlans(tx *repo.Tx, se *repo.Session, plans []*plan, o Options, n int) error {
	tx.Describe(se.ID, ActionImported, "")
	var ws []repo.Write
	done := 0
	flush := func() error {
		if err := tx.WriteMany(ws); err != nil {
			return err
		}
		ws = ws[:0]
		if o.Progress != nil {
			o.Progress(n+done, 2*n)
		}
		return nil
	}
	for _, pl := range plans {
		if pl.data != nil {
			ws = append(ws, repo.Write{Elem: []string{repo.IssuesDir, pl.id + ".md"}, Data: pl.data})
		}
		if len(pl.ledger) > 0 {
			// The issue's new entries in one append, each its own line:
			// two identical lines would read as one entry.
			var lines []byte
			for _, e := range pl.ledger {
				line, err := audit.DistinctLine(e, func(l []byte) bool { return audit.HoldsLine(lines, l) })
				if err != nil {
					return err
				}
				lines = append(lines, line...)
			}
			ws = append(ws, repo.Write{Elem: []string{repo.HistoryDir, pl.id + ".jsonl"}, Data: lines, Append: true})
		}
		done++
		if len(ws) >= writeChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func cleanTitle(t string) (string, error) {
	t = oneLine(t)
	if t == "" {
		return "", badf("the title is empty")
	}
	// A title longer than td takes is cut, not refused: the source's
	// description keeps what it said in full.
	if r := []rune(t); len(r) > policy.MaxTitleRunes {
		t = strings.TrimSpace(string(r[:policy.MaxTitleRunes-1])) + "…"
	}
	if err := policy.CheckTitle(t); err != nil {
		return "", badf("%v", err)
	}
	return t, nil
}

// cleanLabels makes source labels td labels: one line, no brackets,
// braces, commas or #, each once.
func cleanLabels(in []string) []string {
	out := []string{}
	seen := make(map[string]bool, len(in))
	for _, l := range in {
		l = strings.Map(func(c rune) rune {
			if strings.ContainsRune("[]{},#", c) {
				return '-'
			}
			return c
		}, oneLine(l))
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func nonNilLinks(l []domain.Link) []domain.Link {
	if l == nil {
		return []domain.Link{}
	}
	return l
}

func orStatus(s domain.Status) domain.Status {
	if s == "" {
		return domain.StatusOpen
	}
	return s
}

func orType(t domain.IssueType) domain.IssueType {
	if t == "" {
		return domain.DefaultType
	}
	return t
}

func orPriority(p domain.Priority) domain.Priority {
	if p == "" {
		return domain.DefaultPriority
	}
	return p
}
