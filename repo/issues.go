package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// issuePath returns the absolute path of an issue file. id must be valid.
func (s *Store) IssuePath(id string) string { return s.Path(IssuesDir, id+".md") }

func (s *Store) RelIssue(id string) string { return TodosDir + "/" + IssuesDir + "/" + id + ".md" }

// readIssueFile reads and parses one issue file.
func (s *Store) ReadIssueFile(id string) (*Issue, error) {
	rel := s.RelIssue(id)
	if !ValidIssueID(id) {
		return nil, &ParseError{Path: rel, Msg: fmt.Sprintf("file name %q is not an issue ID such as td-k3x9qa", id+".md")}
	}
	data, err := readRegular(s.IssuePath(id), MaxIssueFileSize)
	if err != nil {
		var r *refusal
		if errors.As(err, &r) {
			return nil, &ParseError{Path: rel, Msg: r.reason}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Errorf(CodeNotFound, "no issue %s", id)
		}
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return ParseIssueOwned(rel, id, data) // data was read for it alone
}

// conflictedIssue reads what can be read of an issue file that holds
// conflict markers: the ours side of every region, parsed, marked
// Conflicted and without its Doc, so that td list shows the issue rather
// than hiding it. When even that side does not parse, only the ID and
// path are known.
func (s *Store) conflictedIssue(id string) *Issue {
	rel := s.RelIssue(id)
	stub := &Issue{Issue: domain.Issue{ID: id}, Path: rel, Conflicted: true}
	data, err := readRegular(s.IssuePath(id), MaxIssueFileSize)
	if err != nil {
		return stub
	}
	is, err := ParseIssueOwned(rel, id, markdown.Side(data, true))
	if err != nil {
		return stub
	}
	is.Doc, is.Conflicted = nil, true
	return is
}

// ResolveID turns what a user typed into an issue ID: a full ID, a unique
// prefix of one, or a unique prefix of the part after "<prefix>-".
func (s *Store) ResolveID(ref string) (string, error) {
	r, err := NormalizeRef(ref)
	if err != nil {
		return "", err
	}
	if ValidIssueID(r) {
		if _, err := os.Lstat(s.IssuePath(r)); err == nil {
			return r, nil
		}
	}
	names, err := s.issueFileNames()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", s.FileError(s.Path(IssuesDir), err)
	}
	short := s.Config.IDPrefix + "-" + r
	var matches []string
	for _, n := range names {
		// The cheap prefix test first: it rejects nearly every name.
		if !strings.HasPrefix(n, r) && !strings.HasPrefix(n, short) {
			continue
		}
		if id, ok := strings.CutSuffix(n, ".md"); ok && ValidIssueID(id) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", Errorf(CodeNotFound, "no issue matches %q; td list --all shows every issue", ref)
	}
	sort.Strings(matches)
	shown := matches
	if len(shown) > 8 {
		shown = append(shown[:8:8], fmt.Sprintf("and %d more", len(matches)-8))
	}
	return "", Errorf(CodeAmbiguous, "%q matches %d issues (%s); type more of the ID", ref, len(matches), strings.Join(shown, ", "))
}

// Issue resolves ref and reads that issue's file.
func (s *Store) Issue(ref string) (*Issue, error) {
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	return s.ReadIssueFile(id)
}

// Filter selects issues for List. Empty fields match everything; without
// Statuses or All, closed issues are left out.
type Filter struct {
	Statuses   []string
	Types      []string
	Priorities []string
	Labels     []string // every label must be present
	Assignee   string
	All        bool
	// Text keeps the issues whose title holds every one of its words,
	// in any case (td search looks further than titles).
	Text string
	// assigneeSessions are the sessions Assignee names by a person's or
	// a session's name, filled by ResolveAssignee.
	assigneeSessions map[string]bool
}

// ResolveAssignee returns f ready to match assignees by name: the
// sessions whose name, or whose person's git identity, name, email or
// email's local part, equals f.Assignee (case-insensitively) count as
// assigned to it, so td list --assignee bob finds session:<id> of
// "Bob Stone <bob@example.com>" and of Bob's agents.
// List calls it; a caller matching with f.Match itself must too.
func (s *Store) ResolveAssignee(f Filter) Filter {
	want := strings.TrimSpace(f.Assignee)
	if want == "" {
		return f
	}
	f.assigneeSessions = map[string]bool{}
	all, _ := s.Sessions() // an unreadable identity file is reported where it is read
	for _, se := range all {
		name, email := SplitIdentity(se.Author)
		local, _, _ := strings.Cut(email, "@")
		for _, v := range []string{se.Name, se.Author, name, email, local} {
			if v != "" && strings.EqualFold(v, want) {
				f.assigneeSessions[se.ID] = true
				break
			}
		}
	}
	return f
}

func (f Filter) Match(is *Issue) bool {
	in := func(v string, set []string) bool {
		if len(set) == 0 {
			return true
		}
		for _, x := range set {
			if strings.EqualFold(v, x) {
				return true
			}
		}
		return false
	}
	if len(f.Statuses) == 0 && !f.All && is.Status == domain.StatusClosed {
		return false
	}
	if !in(string(is.Status), f.Statuses) || !in(string(is.Type), f.Types) || !in(string(is.Priority), f.Priorities) {
		return false
	}
	for _, l := range f.Labels {
		if !is.HasLabel(l) {
			return false
		}
	}
	if f.Assignee != "" && !f.assigned(is.Assignee) {
		return false
	}
	if f.Text != "" {
		title := strings.ToLower(is.Title)
		for _, w := range strings.Fields(strings.ToLower(f.Text)) {
			if !strings.Contains(title, w) {
				return false
			}
		}
	}
	return true
}

// assigned reports whether the assignee field names f.Assignee: as
// written or without its "session:" prefix (case-insensitively), or as
// one of the sessions ResolveAssignee found by name.
func (f Filter) assigned(a string) bool {
	bare := strings.TrimPrefix(a, "session:")
	return strings.EqualFold(a, f.Assignee) || strings.EqualFold(bare, f.Assignee) ||
		f.assigneeSessions[bare]
}

// Validate checks filter values against the known statuses, types and
// priorities so a typo is refused rather than matching nothing.
func (f Filter) Validate() error {
	check := func(what string, vals, allowed []string) error {
		for _, v := range vals {
			if _, err := OneOf(v, "", allowed, true); err != nil {
				return Errorf(CodeInvalid, "%s %s", what, err)
			}
		}
		return nil
	}
	if err := check("status", f.Statuses, domain.Words(domain.Statuses())); err != nil {
		return err
	}
	if err := check("type", f.Types, domain.Words(domain.IssueTypes())); err != nil {
		return err
	}
	return check("priority", f.Priorities, domain.Words(domain.Priorities()))
}

// List returns the issues matching f sorted by priority, then age (oldest
// first), then ID; and the files that could not be read. An issue whose
// file holds conflict markers is both: its error, and an issue marked
// Conflicted with what the ours side says, so that it does not vanish
// from the list while a merge is unfinished.
func (s *Store) List(f Filter) ([]*Issue, []error, error) {
	out, _, perrs, err := s.ListAll(f)
	return out, perrs, err
}

// ListAll is List that also returns every issue td could read, whatever
// the filter, in file name order: for a caller that needs facts from
// issues the filter leaves out (how many of an epic's children are
// closed, when closed issues are not listed) without reading them twice.
func (s *Store) ListAll(f Filter) (matched, all []*Issue, perrs []error, err error) {
	matched, all, perrs, err = s.ListAllUnordered(f)
	SortIssues(matched)
	return matched, all, perrs, err
}

// InIDOrder reports whether list is in the order of its IDs, as the store
// lists issues (by file name, which for every ID td makes is the same):
// a caller may then search or walk it by ID instead of building a map.
func InIDOrder(list []*Issue) bool {
	return slices.IsSortedFunc(list, func(a, b *Issue) int { return strings.Compare(a.ID, b.ID) })
}

// ListAllUnordered is ListAll with the matched issues in file name order,
// for a caller that orders them its own way (SortBy, SortFirst).
func (s *Store) ListAllUnordered(f Filter) (matched, all []*Issue, perrs []error, err error) {
	if err := f.Validate(); err != nil {
		return nil, nil, nil, err
	}
	entries, err := s.loadEntries()
	if err != nil {
		return nil, nil, nil, err
	}
	f = s.ResolveAssignee(f)
	all = make([]*Issue, 0, len(entries))
	for _, e := range entries {
		if e.err != nil {
			perrs = append(perrs, e.err)
		}
		if e.issue == nil {
			continue
		}
		all = append(all, e.issue)
		// A conflicted file whose ours side td cannot read either has no
		// fields to filter by: it is listed whatever the filter.
		if f.Match(e.issue) || (e.issue.Conflicted && e.issue.Status == "") {
			matched = append(matched, e.issue)
		}
	}
	return matched, all, perrs, nil
}

func (s *Store) NewIssueID() (string, error) {
	return s.freeID(issueSuffixLen, func(suf string) (string, string) {
		id := s.Config.IDPrefix + "-" + suf
		return id, s.IssuePath(id)
	})
}

// freeID draws random suffixes of length n until one names a file that does
// not exist yet. There are no counters: two branches never mint the same ID.
func (s *Store) freeID(n int, name func(suffix string) (id, path string)) (string, error) {
	src := s.IDs()
	for i := 0; i < 100; i++ {
		suf, err := src.Suffix(n)
		if err != nil {
			return "", err
		}
		id, p := name(suf)
		_, err = os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return id, nil
		}
		if err != nil {
			return "", s.dirError(filepath.Dir(p), err)
		}
	}
	return "", Errorf(CodeInternal, "could not find a free ID after 100 draws")
}

// dirError explains why td cannot look into one of its directories: a
// file where the directory belongs names the fix; any other error names
// the directory.
func (s *Store) dirError(dir string, err error) error {
	if fi, serr := os.Lstat(dir); serr == nil && !fi.IsDir() {
		return Errorf(CodeRefused, "%s is not a directory; td keeps its files in a directory of that name: move the file aside and run the command again", s.rel(dir))
	}
	return s.FileError(dir, err)
}

// ledgerTail is how much of a ledger's end AppendLedger reads for an
// identical line: entries are stamped to the second, so an identical one
// was written moments ago and sits among the last lines.
const ledgerTail = 64 << 10

// AppendLedger appends one entry to the issue's ledger. Every reader
// counts identical lines as one entry (git's union merge can write a line
// twice), so an entry that would repeat a line near the ledger's end (the
// same comment by the same session in the same second) is written with a
// repeat detail that tells the two apart (audit.DistinctLine).
//
// An entry by a hook-driven session names its harness, model and subagent
// (Runtime.Via) as details, unless the entry names them already.
func (s *Store) AppendLedger(tx *Tx, id string, e audit.Entry) error {
	if e.Session != "" && ValidSessionID(e.Session) {
		if rt, err := s.Runtime(e.Session); err == nil {
			e.Details = rt.Via.Details(e.Details)
		}
	}
	tail := readTail(s.Path(HistoryDir, id+".jsonl"), ledgerTail)
	line, err := audit.DistinctLine(e, func(l []byte) bool { return audit.HoldsLine(tail, l) })
	if err != nil {
		return err
	}
	tx.describe(e.Session, e.Action, id)
	tx.name(e.Session)
	return tx.AppendLine(line, HistoryDir, id+".jsonl")
}

// FillUpdated sets each issue's UpdatedAt to the time of the last entry
// of its ledger when that is later than what the file says (created_at,
// or an updated_at written by an older td). Ledgers are read through the
// facts cache, checked by one stat each relative to the history
// directory (td list --json does this for every issue); one td cannot
// read leaves the file's time. A list in ID order, as ListAllUnordered
// returns it, is looked up in the cache by a walk rather than searches.
func (s *Store) FillUpdated(list []*Issue) {
	if len(list) == 0 {
		return
	}
	s.PreloadLedgerFacts()
	c := &s.ledgers
	// The cached facts are looked up under one lock, not one per stat:
	// four goroutines taking it thousands of times mostly waited.
	cached := make([]LedgerFacts, len(list))
	known := make([]bool, len(list))
	names := make([]string, len(list))
	ascending := InIDOrder(list)
	at := 0
	c.mu.Lock()
	for i, is := range list {
		if ascending {
			cached[i], known[i] = c.lookupAscending(is.ID, &at)
		} else {
			cached[i], known[i] = c.lookup(is.ID)
		}
		names[i] = is.ID + ".jsonl"
	}
	c.mu.Unlock()
	// A ledger that is missing or cannot be stated leaves the file's time;
	// so does a missing history directory.
	_ = statIn(s.Path(HistoryDir), names, func(i int, size, mtime int64, err error) {
		if err != nil {
			return
		}
		is, f := list[i], cached[i]
		if !known[i] || f.mtime == -1 || f.size != size || f.mtime != mtime {
			if f, err = s.LedgerFactsOf(is.ID); err != nil {
				return
			}
		}
		if f.LastEvent.After(is.UpdatedAt) {
			is.UpdatedAt = f.LastEvent
		}
	})
	s.SaveLedgerCache()
}

// Ledger reads an issue's ledger. Unreadable lines come back as parse errors
// beside the readable entries.
func (s *Store) Ledger(id string) ([]audit.Entry, []error, error) {
	if !ValidIssueID(id) {
		return nil, nil, Errorf(CodeInvalid, "%q is not an issue ID", id)
	}
	p := s.Path(HistoryDir, id+".jsonl")
	data, err := readRegular(p, maxLedgerSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, s.FileError(p, err)
	}
	entries, lerrs := audit.ParseLedger(data)
	var errs []error
	for _, le := range lerrs {
		errs = append(errs, &ParseError{Path: s.rel(p), Line: le.Line, Msg: le.Msg})
	}
	return entries, errs, nil
}

// WriteIssue writes the file and appends a ledger entry stamped now.
func (s *Store) WriteIssue(tx *Tx, se *Session, is *Issue, action string, details map[string]any, reason string) error {
	if err := s.WriteIssueFile(tx, is); err != nil {
		return err
	}
	return s.AppendLedger(tx, is.ID, audit.Entry{TS: is.UpdatedAt, Session: se.ID, Action: action, Details: details, Reason: reason})
}

// WriteIssueFile writes the file, with no ledger entry: for routine todo
// churn, which lives in the file and in git. It sets is.UpdatedAt to now
// for the caller's output and ledger entries but writes no time into the
// file: no field of an issue file changes on every write, so a merge that
// runs without td's driver (a hosted merge button, a clone that never ran
// td init) merges edits of different fields and todos cleanly. A file
// that already has updated_at keeps those bytes as they are.
func (s *Store) WriteIssueFile(tx *Tx, is *Issue) error {
	// An older layout moves to the current one on this write.
	if err := is.relayout(); err != nil {
		return err
	}
	// Never write a file td would refuse to read back: a checklist grown
	// past the body's limits is refused here, before anything lands.
	var me *markdown.Error
	if err := markdown.CheckBody(is.Doc.Body, 1); errors.As(err, &me) {
		return Errorf(CodeInvalid, "%s would be refused when read back: %s; nothing was written", is.ID, me.Msg)
	}
	is.UpdatedAt = s.Now()
	tx.describe("", actionTodosChanged, is.ID)
	return tx.WriteFile(is.Doc.Bytes(), IssuesDir, is.ID+".md")
}
