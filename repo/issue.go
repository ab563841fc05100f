package repo

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"gopkg.in/yaml.v3"
)

// Issue is one issue file: what its frontmatter says (the domain's Issue),
// where the file is, and its parsed bytes, so that an edit changes only
// what it must.
type Issue struct {
	domain.Issue

	// Path is the file's path relative to the work tree, slash-separated.
	Path string
	// Doc is the parsed file; nil for issues read from the index cache.
	Doc *markdown.File
	// Conflicted marks an issue whose file holds a merge's conflict
	// markers: its fields are those of the ours side, it has no Doc, and
	// td writes nothing to it until the conflict is resolved.
	Conflicted bool

	// tally counts the checklist of an issue read from the index cache,
	// which keeps no Doc: see Tally.
	tally domain.Summary
	// readBody is the body as the file was read, to tell whether a
	// write changes it (see relayout).
	readBody []byte
	// readStatus is what the fields of statusFields held when the file was
	// read, to tell whether a write changes them (see relayout).
	readStatus [len(statusFields)]string
}

// frontFields mirrors the frontmatter keys td knows. Unknown keys stay in
// the file untouched.
type frontFields struct {
	ID          string        `yaml:"id"`
	Title       string        `yaml:"title"`
	Status      string        `yaml:"status"`
	Type        string        `yaml:"type"`
	Priority    string        `yaml:"priority"`
	Minor       bool          `yaml:"minor"`
	Labels      []string      `yaml:"labels"`
	CreatedBy   string        `yaml:"created_by"`
	Implementer string        `yaml:"implementer"`
	Assignee    string        `yaml:"assignee"`
	Resolution  string        `yaml:"resolution"`
	Links       []domain.Link `yaml:"links"`
	CreatedAt   string        `yaml:"created_at"`
	UpdatedAt   string        `yaml:"updated_at"`
}

// parseIssue reads an issue file's bytes. wantID is the ID its file name
// promises. Every problem is a *ParseError naming path and line.
func ParseIssue(path, wantID string, data []byte) (*Issue, error) {
	return parseIssue(path, wantID, data, markdown.Parse)
}

// ParseIssueOwned is ParseIssue for bytes read for it alone, which the
// issue keeps instead of a copy (markdown.ParseOwned): nobody may change
// them afterwards.
func ParseIssueOwned(path, wantID string, data []byte) (*Issue, error) {
	return parseIssue(path, wantID, data, markdown.ParseOwned)
}

func parseIssue(path, wantID string, data []byte, parse func([]byte) (*markdown.File, error)) (*Issue, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, toParseError(path, err)
	}
	var f frontFields
	if err := doc.Front.Decode(&f); err != nil {
		return nil, toParseError(path, err)
	}
	fm := doc.Front
	bad := func(key, format string, args ...any) error {
		return &ParseError{Path: path, Line: fm.Line(key), Msg: fmt.Sprintf(format, args...)}
	}
	is := &Issue{Issue: domain.Issue{
		ID: f.ID, Title: f.Title, Minor: f.Minor, Labels: f.Labels,
		CreatedBy: f.CreatedBy, Implementer: f.Implementer, Assignee: f.Assignee,
		Links: f.Links,
	}, Path: path, Doc: doc, readBody: doc.Body,
		readStatus: [len(statusFields)]string{f.Status, f.Implementer, f.Assignee, f.Resolution}}
	switch {
	case f.ID == "":
		return nil, &ParseError{Path: path, Line: 1, Msg: "frontmatter has no id"}
	case f.ID != wantID:
		return nil, bad("id", "id %q does not match the file name %s.md", f.ID, wantID)
	case strings.TrimSpace(f.Title) == "":
		if fm.Has("title") {
			return nil, bad("title", "title is empty")
		}
		return nil, &ParseError{Path: path, Line: 1, Msg: "frontmatter has no title"}
	}
	if is.Status, err = OneOf(f.Status, domain.StatusOpen, domain.Statuses(), false); err != nil {
		return nil, bad("status", "status %s", err)
	}
	if is.Type, err = OneOf(f.Type, domain.DefaultType, domain.IssueTypes(), false); err != nil {
		return nil, bad("type", "type %s", err)
	}
	if is.Priority, err = OneOf(f.Priority, domain.DefaultPriority, domain.Priorities(), true); err != nil {
		return nil, bad("priority", "priority %s", err)
	}
	if f.Resolution != "" {
		if is.Resolution, err = OneOf(f.Resolution, "", domain.Resolutions(), false); err != nil {
			return nil, bad("resolution", "resolution %s", err)
		}
	}
	for _, l := range f.Links {
		if !l.Kind.Stored() {
			return nil, bad("links", "link kind %q must be one of %s", l.Kind, domain.JoinWords(domain.LinkKinds()))
		}
		if !ValidIssueID(l.To) {
			return nil, bad("links", "link target %q is not an issue ID", l.To)
		}
	}
	if is.CreatedAt, err = parseTime(f.CreatedAt); err != nil {
		return nil, bad("created_at", "created_at %s", err)
	}
	if is.UpdatedAt, err = parseTime(f.UpdatedAt); err != nil {
		return nil, bad("updated_at", "updated_at %s", err)
	}
	// td no longer writes updated_at (see WriteIssueFile); a file that has
	// one keeps it, frozen, and Store.FillUpdated brings the time forward
	// from the ledger.
	if is.UpdatedAt.IsZero() {
		is.UpdatedAt = is.CreatedAt
	}
	return is, nil
}

// oneOf checks v against allowed values; empty means def. With fold, case is
// ignored and the canonical spelling returned.
func OneOf[T ~string](v string, def T, allowed []T, fold bool) (T, error) {
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if v == string(a) || (fold && strings.EqualFold(v, string(a))) {
			return a, nil
		}
	}
	return "", fmt.Errorf("%q must be one of %s", v, domain.JoinWords(allowed))
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time such as 2026-11-21T10:04:11Z", s)
	}
	return t.UTC(), nil
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func toParseError(path string, err error) error {
	if me, ok := err.(*markdown.Error); ok {
		return &ParseError{Path: path, Line: me.Line, Msg: me.Msg, Conflict: me.Conflict}
	}
	return &ParseError{Path: path, Msg: err.Error()}
}

// descriptionEnd is where the free description ends: at the first level-1 or
// level-2 heading (goldmark's reading, so headings inside code blocks do not
// count). Sections after it, td's and the user's, are never touched by a
// description edit.
func DescriptionEnd(body []byte) int {
	for _, h := range markdown.Headings(body) {
		if h.Level <= 2 {
			return h.Start
		}
	}
	return len(body)
}

// Description returns the free description: the body up to the first
// section heading, without surrounding blank lines.
func (is *Issue) Description() string {
	if is.Doc == nil {
		return ""
	}
	body := is.Doc.Body
	d := body[:DescriptionEnd(body)]
	return strings.TrimSpace(string(bytes.ReplaceAll(d, []byte("\r\n"), []byte("\n"))))
}

// Body returns the markdown body as written in the file.
func (is *Issue) Body() string {
	if is.Doc == nil {
		return ""
	}
	return string(is.Doc.Body)
}

// HasLabel reports whether the issue carries label l.
func (is *Issue) HasLabel(l string) bool {
	for _, x := range is.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// setField rewrites one frontmatter field in the document, leaving every
// other byte of the file as it was.
func (is *Issue) SetField(key string, v any) error {
	n, err := fieldNode(key, v)
	if err != nil {
		return err
	}
	if err := is.Doc.Front.Set(key, n); err != nil {
		return fmt.Errorf("set %s in %s: %w", key, is.Path, err)
	}
	return nil
}

// fieldNode is the canonical YAML of a frontmatter field's value.
func fieldNode(key string, v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case string:
		return markdown.Str(x), nil
	case bool:
		return markdown.Bool(x), nil
	case []string:
		return markdown.BlockStrings(x), nil
	case []domain.Link:
		ms := make([][][2]string, len(x))
		for i, l := range x {
			ms[i] = [][2]string{{"kind", string(l.Kind)}, {"to", l.To}}
		}
		return markdown.FlowMaps(ms), nil
	case time.Time:
		return markdown.Str(formatTime(x)), nil
	}
	return nil, fmt.Errorf("set %s: unsupported value %T", key, v)
}

// setWord rewrites a string field, and the struct's copy of it, only
// when the value changes.
func SetWord[T ~string](is *Issue, field string, cur *T, v T) error {
	if *cur == v {
		return nil
	}
	if err := is.SetField(field, string(v)); err != nil {
		return err
	}
	*cur = v
	return nil
}

// The layout of an issue file's frontmatter. A forge's merge button, a
// clone without td's merge driver and a rebase merge issue files line by
// line, and git merges two changes cleanly only when a line neither side
// changed lies between them. So every field that changes on its own is
// apart from the others, after a line that never changes (id, created_by,
// created_at) or an empty line: title, then status with resolution (the
// resolution is set only by a close and cleared only by a reopen, both of
// which move the status too), implementer (td start, td reclaim), assignee
// (td send, td session bind, td edit --assignee), type, priority, minor,
// labels and links. Labels and links are block lists, one a line. There
// is no updated_at: a field that changes on every write would make every
// two branches that touch one issue conflict.
var issueLayout = [][]string{
	{"id", "title", "created_by", "created_at"},
	{"status", "resolution"},
	{"implementer"},
	{"assignee"},
	{"type"},
	{"priority"},
	{"minor"},
	{"labels"},
	{"links"},
}

// statusFields are the fields blockLayout keeps on consecutive lines, in
// that order.
var statusFields = [...]string{"status", "implementer", "assignee", "resolution"}

// blockLayout is the layout td wrote before issueLayout: the same, except
// that status, implementer, assignee and resolution were one block, so a
// td send on one branch and a td start on the other (the assignee and the
// implementer, on adjacent lines) stopped a line merge.
var blockLayout = [][]string{
	{"id", "title", "created_by", "created_at"},
	statusFields[:],
	{"type"},
	{"priority"},
	{"minor"},
	{"labels"},
	{"links"},
}

// oldIssueLayout is the order of the keys td wrote before blockLayout, on
// consecutive lines, with labels as a flow list.
var oldIssueLayout = []string{
	"id", "title", "status", "type", "priority", "minor", "labels",
	"created_by", "implementer", "assignee", "resolution", "links", "created_at",
}

// NewIssueDoc renders a new issue file in canonical form: the frontmatter
// in issueLayout, the description, then the acceptance criteria and Todos
// sections, empty, so that the first criterion and the first step are
// written under different lines (see markdown.Checklist.EnsureSections).
func NewIssueDoc(is *Issue, description string) (*markdown.File, error) {
	body := "\n## Acceptance criteria\n\n## Todos\n"
	if d := strings.TrimSpace(description); d != "" {
		body = "\n" + d + "\n" + body
	}
	return BuildIssueDoc(is, []byte(body), nil)
}

// issueFields are the frontmatter fields of a new issue.
func issueFields(is *Issue) map[string]any {
	return map[string]any{
		"id": is.ID, "title": is.Title, "status": string(is.Status), "type": string(is.Type),
		"priority": string(is.Priority), "minor": is.Minor, "labels": NonNil(is.Labels),
		"created_by": is.CreatedBy, "implementer": is.Implementer, "assignee": is.Assignee,
		"resolution": string(is.Resolution), "links": is.Links, "created_at": is.CreatedAt,
	}
}

// BuildIssueDoc renders a new issue file as NewIssueDoc does, its body
// as given, followed by more frontmatter keys; the frontmatter is parsed
// once, not once a key, for the many files of an import.
func BuildIssueDoc(is *Issue, body []byte, more []markdown.KeyValue) (*markdown.File, error) {
	fields := issueFields(is)
	groups := make([][]markdown.KeyValue, 0, len(issueLayout)+1)
	for _, g := range issueLayout {
		kvs := make([]markdown.KeyValue, 0, len(g))
		for _, k := range g {
			n, err := fieldNode(k, fields[k])
			if err != nil {
				return nil, err
			}
			kvs = append(kvs, markdown.KeyValue{Key: k, Value: n})
		}
		groups = append(groups, kvs)
	}
	if len(more) > 0 {
		groups[len(groups)-1] = append(groups[len(groups)-1], more...)
	}
	fm, err := markdown.BuildFrontmatterGroups(groups)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", is.ID, err)
	}
	doc := markdown.NewFile(fm, body)
	is.Doc = doc
	return doc, nil
}

// hasKeys reports whether keys begin with want.
func hasKeys(keys, want []string) bool {
	return len(keys) >= len(want) && slices.Equal(keys[:len(want)], want)
}

// relayout moves a file td wrote in an older layout to the current one,
// on the file's next write, never in a sweep of every file. A frontmatter
// in oldIssueLayout's order moves to issueLayout (each key's lines kept,
// labels rewritten as a block list). One in blockLayout moves when this
// write changes one of the fields of its status block, and only then:
// the move rewrites the block's lines only, which that change rewrites
// anyway, so a write of another field or of the body leaves the block's
// lines for a line merge with the other side's. A body the write changed
// gets the acceptance criteria and Todos sections it lacks. A frontmatter
// a person laid out (comments, blank lines, another order) stays as it
// is, and so does every byte of the body but the headings added; a file
// whose keys are not td's, in td's order, is a person's and gains no
// heading. It is one write's change: the first write of an old file on
// two branches may conflict at a merge that runs without td's driver.
func (is *Issue) relayout() error {
	fm := is.Doc.Front
	keys := fm.Keys()
	old := hasKeys(keys, oldIssueLayout)
	tds := old || hasKeys(keys, slices.Concat(issueLayout...))
	switch {
	case old:
		if n := fm.Node("labels"); n != nil && n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0 {
			if err := is.SetField("labels", NonNil(is.Labels)); err != nil {
				return err
			}
		}
		fm.Relayout(nil, issueLayout)
	case hasKeys(keys, slices.Concat(blockLayout...)):
		tds = true
		if is.statusChanged() {
			fm.Relayout(blockLayout, issueLayout)
		}
	}
	// A body td wrote, as the frontmatter's keys tell: a file a person
	// wrote keeps the sections they gave it.
	body := is.Doc.Body
	if tds && !bytes.Equal(body, is.readBody) &&
		// Most bodies have both headings: no parse for them.
		!(bytes.Contains(body, []byte("## Acceptance criteria")) && bytes.Contains(body, []byte("## Todos"))) {
		c := markdown.ParseChecklist(is.Doc.Body)
		if c.EnsureSections() {
			is.Doc.Body = c.Bytes()
		}
	}
	return nil
}

// statusChanged reports whether a field of statusFields holds another
// value than when the file was read.
func (is *Issue) statusChanged() bool {
	for i, k := range statusFields {
		v := ""
		if n := is.Doc.Front.Node(k); n != nil {
			v = n.Value
		}
		if v != is.readStatus[i] {
			return true
		}
	}
	return false
}

func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// setLinks rewrites the links field, and the struct's copy of it.
func (is *Issue) SetLinks(links []domain.Link) error {
	if links == nil {
		links = []domain.Link{}
	}
	if err := is.SetField("links", links); err != nil {
		return err
	}
	is.Links = links
	return nil
}

// setStatus changes the status field in the issue document.
func (is *Issue) SetStatus(status domain.Status) error {
	if err := is.SetField("status", string(status)); err != nil {
		return err
	}
	is.Status = status
	return nil
}
