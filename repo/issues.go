package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
)

// issuePath returns the absolute path of an issue file. id must be valid.
func (s *Store) issuePath(id string) string { return s.path(IssuesDir, id+".md") }

func (s *Store) relIssue(id string) string { return TodosDir + "/" + IssuesDir + "/" + id + ".md" }

// readIssueFile reads and parses one issue file.
func (s *Store) readIssueFile(id string) (*Issue, error) {
	rel := s.relIssue(id)
	if !ValidIssueID(id) {
		return nil, &ParseError{Path: rel, Msg: fmt.Sprintf("file name %q is not an issue ID such as td-k3x9qa", id+".md")}
	}
	data, err := readRegular(s.issuePath(id), MaxIssueFileSize)
	if err != nil {
		var r *refusal
		if errors.As(err, &r) {
			return nil, &ParseError{Path: rel, Msg: r.reason}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errorf(CodeNotFound, "no issue %s", id)
		}
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return parseIssue(rel, id, data)
}

// ResolveID turns what a user typed into an issue ID: a full ID, a unique
// prefix of one, or a unique prefix of the part after "<prefix>-".
func (s *Store) ResolveID(ref string) (string, error) {
	r, err := normalizeRef(ref)
	if err != nil {
		return "", err
	}
	if ValidIssueID(r) {
		if _, err := os.Lstat(s.issuePath(r)); err == nil {
			return r, nil
		}
	}
	f, err := os.Open(s.path(IssuesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", s.fileError(s.path(IssuesDir), err)
	}
	var names []string
	if f != nil {
		names, err = f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return "", s.fileError(s.path(IssuesDir), err)
		}
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
		return "", errorf(CodeNotFound, "no issue matches %q; td list --all shows every issue", ref)
	}
	sort.Strings(matches)
	shown := matches
	if len(shown) > 8 {
		shown = append(shown[:8:8], fmt.Sprintf("and %d more", len(matches)-8))
	}
	return "", errorf(CodeAmbiguous, "%q matches %d issues (%s); type more of the ID", ref, len(matches), strings.Join(shown, ", "))
}

// Issue resolves ref and reads that issue's file.
func (s *Store) Issue(ref string) (*Issue, error) {
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	return s.readIssueFile(id)
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
}

func (f Filter) match(is *Issue) bool {
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
	if f.Assignee != "" && is.Assignee != f.Assignee && strings.TrimPrefix(is.Assignee, "session:") != f.Assignee {
		return false
	}
	return true
}

// Validate checks filter values against the known statuses, types and
// priorities so a typo is refused rather than matching nothing.
func (f Filter) Validate() error {
	check := func(what string, vals, allowed []string) error {
		for _, v := range vals {
			if _, err := oneOf(v, "", allowed, true); err != nil {
				return errorf(CodeInvalid, "%s %s", what, err)
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
// first), then ID; and the files that could not be read.
func (s *Store) List(f Filter) ([]*Issue, []error, error) {
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	all, perrs, err := s.loadAll()
	if err != nil {
		return nil, nil, err
	}
	out := all[:0]
	for _, is := range all {
		if f.match(is) {
			out = append(out, is)
		}
	}
	SortIssues(out)
	return out, perrs, nil
}

// SortIssues orders issues by priority, then creation time, then ID.
func SortIssues(list []*Issue) {
	slices.SortFunc(list, func(a, b *Issue) int {
		if c := strings.Compare(string(a.Priority), string(b.Priority)); c != 0 {
			return c
		}
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// CreateOptions describes a new issue.
type CreateOptions struct {
	Title       string
	Type        string
	Priority    string
	Labels      []string
	Minor       bool
	Description string
	// Parent, when set, links the new issue child_of it: what td create
	// does inside a bound session.
	Parent string
}

// CreateIssue writes a new issue file and its "created" ledger entry.
func (s *Store) CreateIssue(se *Session, o CreateOptions) (*Issue, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	title := strings.TrimSpace(o.Title)
	if title == "" {
		return nil, errorf(CodeInvalid, "the title is empty; give the issue a title")
	}
	if strings.ContainsAny(title, "\r\n") {
		return nil, errorf(CodeInvalid, "the title must be one line")
	}
	typ, err := oneOf(o.Type, domain.DefaultType, domain.IssueTypes(), true)
	if err != nil {
		return nil, errorf(CodeInvalid, "type %s", err)
	}
	prio, err := oneOf(o.Priority, domain.DefaultPriority, domain.Priorities(), true)
	if err != nil {
		return nil, errorf(CodeInvalid, "priority %s", err)
	}
	labels, err := cleanLabels(o.Labels)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	is := &Issue{Issue: domain.Issue{Title: title, Status: domain.StatusOpen, Type: typ, Priority: prio, Minor: o.Minor,
		Labels: labels, CreatedBy: se.ID, Links: []domain.Link{}, CreatedAt: now, UpdatedAt: now}}
	if o.Parent != "" {
		parent, err := s.ResolveID(o.Parent)
		if err != nil {
			return nil, err
		}
		is.Links = []domain.Link{{Kind: domain.ChildOf, To: parent}}
	}
	err = s.Update(func(tx *Tx) error {
		id, err := s.newIssueID()
		if err != nil {
			return err
		}
		is.ID, is.Path = id, s.relIssue(id)
		doc, err := newIssueDoc(is, o.Description)
		if err != nil {
			return err
		}
		if err := tx.WriteFile(doc.Bytes(), IssuesDir, id+".md"); err != nil {
			return err
		}
		details := map[string]any{"title": title}
		if o.Minor {
			details["minor"] = true
		}
		if len(is.Links) > 0 {
			details["child_of"] = is.Links[0].To
		}
		return s.appendLedger(tx, id, audit.Entry{TS: now, Session: se.ID, Action: audit.ActionCreated, Details: details})
	})
	if err != nil {
		return nil, err
	}
	return is, nil
}

func (s *Store) newIssueID() (string, error) {
	return s.freeID(issueSuffixLen, func(suf string) (string, string) {
		id := s.Config.IDPrefix + "-" + suf
		return id, s.issuePath(id)
	})
}

// freeID draws random suffixes of length n until one names a file that does
// not exist yet. There are no counters: two branches never mint the same ID.
func (s *Store) freeID(n int, name func(suffix string) (id, path string)) (string, error) {
	src := s.ids()
	for i := 0; i < 100; i++ {
		suf, err := src.suffix(n)
		if err != nil {
			return "", err
		}
		id, p := name(suf)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return id, nil
		}
	}
	return "", errorf(CodeInternal, "could not find a free ID after 100 draws")
}

func cleanLabels(in []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, raw := range in {
		for _, l := range strings.Split(raw, ",") {
			l = strings.TrimSpace(l)
			if l == "" || seen[l] {
				continue
			}
			if strings.ContainsAny(l, "\r\n[]{},#") {
				return nil, errorf(CodeInvalid, "label %q may not contain newlines, brackets, braces, commas or #", l)
			}
			seen[l] = true
			out = append(out, l)
		}
	}
	return out, nil
}

// appendLedger appends one entry to the issue's ledger.
func (s *Store) appendLedger(tx *Tx, id string, e audit.Entry) error {
	line, err := e.Line()
	if err != nil {
		return err
	}
	tx.describe(e.Session, e.Action, id)
	return tx.AppendLine(line, HistoryDir, id+".jsonl")
}

// Ledger reads an issue's ledger. Unreadable lines come back as parse errors
// beside the readable entries.
func (s *Store) Ledger(id string) ([]audit.Entry, []error, error) {
	if !ValidIssueID(id) {
		return nil, nil, errorf(CodeInvalid, "%q is not an issue ID", id)
	}
	p := s.path(HistoryDir, id+".jsonl")
	data, err := readRegular(p, maxLedgerSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, s.fileError(p, err)
	}
	entries, lerrs := audit.ParseLedger(data)
	var errs []error
	for _, le := range lerrs {
		errs = append(errs, &ParseError{Path: s.rel(p), Line: le.Line, Msg: le.Msg})
	}
	return entries, errs, nil
}

// EditOptions lists the fields to change; nil or empty means unchanged.
type EditOptions struct {
	Title        *string
	Type         *string
	Priority     *string
	Minor        *bool
	Labels       *[]string // replace the whole set
	AddLabels    []string
	RemoveLabels []string
	Assignee     *string
	Description  *string // replace the description
	Append       string  // add a paragraph to the description
}

// Change is one field changed by EditIssue.
type Change struct {
	Field string `json:"field"`
	From  any    `json:"from,omitempty"`
	To    any    `json:"to,omitempty"`
}

// EditIssue changes the given fields, rewriting only their bytes, and
// records an "edited" ledger entry. Nothing is written when nothing changes.
func (s *Store) EditIssue(se *Session, ref string, o EditOptions) (*Issue, []Change, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, nil, err
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, nil, err
	}
	var is *Issue
	var changes []Change
	err = s.Update(func(tx *Tx) error {
		if is, err = s.readIssueFile(id); err != nil {
			return err
		}
		if changes, err = applyEdit(is, o); err != nil {
			return err
		}
		if len(changes) == 0 {
			return nil
		}
		return s.writeIssue(tx, se, is, audit.ActionEdited, editDetails(changes), "")
	})
	return is, changes, err
}

func applyEdit(is *Issue, o EditOptions) ([]Change, error) {
	var changes []Change
	set := func(field string, from, to any) error {
		changes = append(changes, Change{Field: field, From: from, To: to})
		return is.setField(field, to)
	}
	// setString records and writes a string field only when it changes.
	setString := func(field string, cur *string, to string) error {
		if to != *cur {
			changes = append(changes, Change{Field: field, From: *cur, To: to})
		}
		return setWord(is, field, cur, to)
	}
	if o.Title != nil {
		t := strings.TrimSpace(*o.Title)
		if t == "" || strings.ContainsAny(t, "\r\n") {
			return nil, errorf(CodeInvalid, "the title must be one non-empty line")
		}
		if err := setString("title", &is.Title, t); err != nil {
			return nil, err
		}
	}
	if o.Type != nil {
		t, err := oneOf(*o.Type, "", domain.IssueTypes(), true)
		if err != nil || t == "" {
			return nil, errorf(CodeInvalid, "type %q must be one of %s", *o.Type, domain.JoinWords(domain.IssueTypes()))
		}
		if err := setString("type", (*string)(&is.Type), string(t)); err != nil {
			return nil, err
		}
	}
	if o.Priority != nil {
		p, err := oneOf(*o.Priority, "", domain.Priorities(), true)
		if err != nil || p == "" {
			return nil, errorf(CodeInvalid, "priority %q must be one of %s", *o.Priority, domain.JoinWords(domain.Priorities()))
		}
		if err := setString("priority", (*string)(&is.Priority), string(p)); err != nil {
			return nil, err
		}
	}
	if o.Minor != nil && *o.Minor != is.Minor {
		if err := set("minor", is.Minor, *o.Minor); err != nil {
			return nil, err
		}
		is.Minor = *o.Minor
	}
	if o.Labels != nil || len(o.AddLabels) > 0 || len(o.RemoveLabels) > 0 {
		labels := is.Labels
		if o.Labels != nil {
			labels = *o.Labels
		}
		labels, err := cleanLabels(append(append([]string{}, labels...), o.AddLabels...))
		if err != nil {
			return nil, err
		}
		rm, err := cleanLabels(o.RemoveLabels)
		if err != nil {
			return nil, err
		}
		out := []string{}
		for _, l := range labels {
			if !contains(rm, l) {
				out = append(out, l)
			}
		}
		if strings.Join(out, "\x00") != strings.Join(is.Labels, "\x00") {
			if err := set("labels", nonNil(is.Labels), out); err != nil {
				return nil, err
			}
			is.Labels = out
		}
	}
	if o.Assignee != nil {
		a := strings.TrimSpace(*o.Assignee)
		if strings.ContainsAny(a, "\r\n") {
			return nil, errorf(CodeInvalid, "the assignee must be one line")
		}
		if err := setString("assignee", &is.Assignee, a); err != nil {
			return nil, err
		}
	}
	if o.Description != nil || o.Append != "" {
		body := is.Doc.Body
		end := descriptionEnd(body)
		eol := is.Doc.EOL()
		old := strings.TrimSpace(string(body[:end]))
		desc := old
		if o.Description != nil {
			desc = strings.TrimSpace(*o.Description)
		}
		if a := strings.TrimSpace(o.Append); a != "" {
			if desc != "" {
				desc += "\n\n"
			}
			desc += a
		}
		if desc != strings.TrimSpace(strings.ReplaceAll(old, "\r\n", "\n")) {
			region := ""
			if desc != "" {
				region = eol + strings.ReplaceAll(strings.ReplaceAll(desc, "\r\n", "\n"), "\n", eol) + eol
				if end < len(body) {
					region += eol
				}
			}
			nb := append([]byte(region), body[end:]...)
			is.Doc.Body = nb
			changes = append(changes, Change{Field: "description"})
		}
	}
	return changes, nil
}

func contains(ss []string, v string) bool {
	for _, s := range ss {
		if s == v {
			return true
		}
	}
	return false
}

func editDetails(changes []Change) map[string]any {
	fields := make([]string, len(changes))
	d := map[string]any{}
	for i, c := range changes {
		fields[i] = c.Field
		if c.Field != "description" {
			d[c.Field] = map[string]any{"from": c.From, "to": c.To}
		}
	}
	d["fields"] = fields
	return d
}

// writeIssue stamps updated_at, writes the file and appends a ledger entry.
func (s *Store) writeIssue(tx *Tx, se *Session, is *Issue, action string, details map[string]any, reason string) error {
	if err := s.writeIssueFile(tx, is); err != nil {
		return err
	}
	return s.appendLedger(tx, is.ID, audit.Entry{TS: is.UpdatedAt, Session: se.ID, Action: action, Details: details, Reason: reason})
}

// writeIssueFile stamps updated_at and writes the file, with no ledger
// entry: for routine todo churn, which lives in the file and in git.
func (s *Store) writeIssueFile(tx *Tx, is *Issue) error {
	now := s.Now()
	if err := is.setField("updated_at", now); err != nil {
		return err
	}
	is.UpdatedAt = now
	tx.describe("", actionTodosChanged, is.ID)
	return tx.WriteFile(is.Doc.Bytes(), IssuesDir, is.ID+".md")
}

// Comment appends a comment to the issue's ledger. Comments live in the
// ledger, not the file, so concurrent comments never conflict.
func (s *Store) Comment(se *Session, ref, text string) (*Issue, audit.Entry, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, audit.Entry{}, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, audit.Entry{}, errorf(CodeInvalid, "the comment is empty; pass the text as an argument or with --file")
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, audit.Entry{}, err
	}
	var is *Issue
	e := audit.Entry{TS: s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": text}}
	err = s.Update(func(tx *Tx) error {
		if is, err = s.readIssueFile(id); err != nil {
			return err
		}
		return s.appendLedger(tx, id, e)
	})
	return is, e, err
}
