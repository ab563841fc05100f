package domain

import (
	"slices"
	"time"
)

// Status is where an issue stands in the workflow.
type Status string

// Issue statuses, in workflow order.
const (
	StatusOpen       Status = "open"
	StatusInProgress Status = "in_progress"
	StatusBlocked    Status = "blocked"
	StatusInReview   Status = "in_review"
	StatusClosed     Status = "closed"
)

// Statuses lists every issue status in workflow order.
func Statuses() []Status {
	return []Status{StatusOpen, StatusInProgress, StatusBlocked, StatusInReview, StatusClosed}
}

// Valid reports whether s is one of the issue statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses(), s) }

// IssueType is what kind of work an issue is.
type IssueType string

// Issue types.
const (
	TypeBug     IssueType = "bug"
	TypeFeature IssueType = "feature"
	TypeTask    IssueType = "task"
	TypeChore   IssueType = "chore"
	TypeEpic    IssueType = "epic"
)

// DefaultType is the type of an issue whose file names none.
const DefaultType = TypeTask

// IssueTypes lists the issue types.
func IssueTypes() []IssueType {
	return []IssueType{TypeBug, TypeFeature, TypeTask, TypeChore, TypeEpic}
}

// Valid reports whether t is one of the issue types.
func (t IssueType) Valid() bool { return slices.Contains(IssueTypes(), t) }

// Priority is an issue's urgency, P0 the most urgent.
type Priority string

// Priorities, most urgent first.
const (
	P0 Priority = "P0"
	P1 Priority = "P1"
	P2 Priority = "P2"
	P3 Priority = "P3"
	P4 Priority = "P4"
)

// DefaultPriority is the priority of an issue that names none.
const DefaultPriority = P2

// Priorities lists the priorities, most urgent first.
func Priorities() []Priority { return []Priority{P0, P1, P2, P3, P4} }

// Valid reports whether p is one of the priorities.
func (p Priority) Valid() bool { return slices.Contains(Priorities(), p) }

// Resolution says how a closed issue ended.
type Resolution string

// Resolutions of a closed issue.
const (
	ResolutionDone      Resolution = "done"
	ResolutionDuplicate Resolution = "duplicate"
	ResolutionWontfix   Resolution = "wontfix"
)

// Resolutions lists the values of resolution for a closed issue.
func Resolutions() []Resolution {
	return []Resolution{ResolutionDone, ResolutionDuplicate, ResolutionWontfix}
}

// Valid reports whether r is one of the resolutions.
func (r Resolution) Valid() bool { return slices.Contains(Resolutions(), r) }

// Issue is what an issue file's frontmatter says, decoded and validated.
// The body (description, criteria, todos, anchors) is the markdown
// package's; the file's bytes and path are the store's.
type Issue struct {
	ID          string
	Title       string
	Status      Status
	Type        IssueType
	Priority    Priority
	Minor       bool
	Labels      []string
	CreatedBy   string // the session that filed it
	Implementer string // the session that started it
	Assignee    string // "session:<id>" while a session is bound, or a free name
	Resolution  Resolution
	Links       []Link
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Open reports whether the issue is not closed.
func (is *Issue) Open() bool { return is.Status != StatusClosed }

// AssigneeSessionPrefix starts an assignee that names a bound session.
const AssigneeSessionPrefix = "session:"

// AssignedSession returns the session ID an assignee of the form
// "session:<id>" names, or "".
func (is *Issue) AssignedSession() string {
	if len(is.Assignee) > len(AssigneeSessionPrefix) && is.Assignee[:len(AssigneeSessionPrefix)] == AssigneeSessionPrefix {
		return is.Assignee[len(AssigneeSessionPrefix):]
	}
	return ""
}
