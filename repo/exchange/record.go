package exchange

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// Record is one issue as a source describes it, already in td's words:
// what Apply writes as one issue file and its ledger entries.
type Record struct {
	// Source is the issue's key in its tracker, "<source>:<id>"
	// (beads:bd-a1b2): the value of imported_from.
	Source string
	// At is where the record starts in the input, for messages.
	At Position
	// ID is the td ID to keep, for td's own export; "" draws a new one.
	ID string

	Title       string
	Description string
	Status      domain.Status
	Resolution  domain.Resolution
	Type        domain.IssueType
	Priority    domain.Priority
	Minor       bool
	Labels      []string
	Assignee    string
	// CreatedBy and Implementer are td sessions, from td's own export
	// only; other sources' people go to the ledger and to imported:.
	CreatedBy   string
	Implementer string
	CreatedAt   time.Time
	UpdatedAt   time.Time

	// Sections are further parts of the body (an implementation plan,
	// notes), written after the description under their own headings.
	Sections []Section
	// Criteria are acceptance criteria; Todos are steps.
	Criteria []Item
	Todos    []Item
	// Body, when set, is the whole markdown body as td's own export has
	// it, written byte for byte instead of rendering the parts above.
	Body    string
	HasBody bool

	// Links point at other records by Source key, or at td IDs.
	Links []Link
	// Events are comments and history, oldest first.
	Events []Event
	// Extra holds every field td has no place for: written under the
	// frontmatter key imported:.
	Extra map[string]any
	// Front holds other frontmatter keys to write as they are (td's own
	// export carries the unknown keys of the file it came from).
	Front map[string]any
}

// Section is a heading and its markdown.
type Section struct {
	Title string
	Text  string
}

// Item is one checklist item.
type Item struct {
	Text   string
	Status domain.TodoStatus
	Phase  string
	Notes  []string
}

// Link is a link to another record (by its Source key) or td issue.
type Link struct {
	Kind domain.LinkKind
	To   string
}

// Event is one comment or history entry of the source.
type Event struct {
	At     time.Time
	Author string
	// Kind is "comment", or the source's name for what happened.
	Kind    string
	Text    string
	Details map[string]any
}

// EventComment is the Kind of a comment.
const EventComment = "comment"

// Position is a place in an input: a file and a 1-based line (0 when the
// file as a whole is meant).
type Position struct {
	Path string
	Line int
}

// String is the position as path:line, or the path alone.
func (p Position) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return p.Path
}

// BadInput is a row or file a reader could not turn into a record.
type BadInput struct {
	At     Position
	Reason string
}

// String is the bad row as path:line: reason.
func (b BadInput) String() string { return b.At.String() + ": " + b.Reason }

// Parsed is what a reader made of its input.
type Parsed struct {
	Records []*Record
	Bad     []BadInput
	// Warnings are things read but not fully understood (a link to an
	// issue the input does not hold), for the person to see.
	Warnings []string
}

func (p *Parsed) bad(at Position, format string, args ...any) {
	p.Bad = append(p.Bad, BadInput{At: at, Reason: fmt.Sprintf(format, args...)})
}

// oneLine joins the lines of s with single spaces: a title or a todo.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// setExtra keeps a field td has no place for.
func (r *Record) setExtra(key string, v any) {
	if isEmpty(v) {
		return
	}
	if r.Extra == nil {
		r.Extra = map[string]any{}
	}
	r.Extra[key] = v
}

// isEmpty reports whether v carries nothing worth keeping.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case []string:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
