package exchange

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
)

// The mapping of each source's statuses, priorities and types onto td's.
// A value a table does not know maps to td's default and is kept under
// imported: by the reader, so nothing is lost.

// statusWord is a source status in td's words: the status, and the
// resolution when the source says the issue is closed.
type statusWord struct {
	Status     domain.Status
	Resolution domain.Resolution
}

// beadsStatuses maps beads' statuses. deferred and pinned are open work
// in td; tombstone is a deleted issue, closed as wontfix.
var beadsStatuses = map[string]statusWord{
	"open":        {domain.StatusOpen, ""},
	"in_progress": {domain.StatusInProgress, ""},
	"blocked":     {domain.StatusBlocked, ""},
	"deferred":    {domain.StatusOpen, ""},
	"pinned":      {domain.StatusOpen, ""},
	"hooked":      {domain.StatusInProgress, ""},
	"review":      {domain.StatusInReview, ""},
	"closed":      {domain.StatusClosed, domain.ResolutionDone},
	"tombstone":   {domain.StatusClosed, domain.ResolutionWontfix},
}

// beadsTypes maps beads' issue types; the rest (message, molecule, gate,
// ...) become tasks.
var beadsTypes = map[string]domain.IssueType{
	"bug": domain.TypeBug, "feature": domain.TypeFeature, "task": domain.TypeTask,
	"chore": domain.TypeChore, "epic": domain.TypeEpic,
}

// beadsLinks maps beads' dependency types onto td's link kinds. The
// dependency's issue is the link's source, depends_on_id its target.
var beadsLinks = map[string]domain.LinkKind{
	"blocks":             domain.BlockedBy,
	"conditional-blocks": domain.BlockedBy,
	"waits-for":          domain.BlockedBy,
	"parent-child":       domain.ChildOf,
	"duplicates":         domain.DuplicateOf,
	"related":            domain.RelatesTo,
	"relates_to":         domain.RelatesTo,
	"discovered-from":    domain.RelatesTo,
	"supersedes":         domain.RelatesTo,
	"replies-to":         domain.RelatesTo,
	"tracks":             domain.RelatesTo,
}

// backlogStatuses maps Backlog.md's default statuses, matched without
// case; a project's own statuses become open.
var backlogStatuses = map[string]statusWord{
	"to do":       {domain.StatusOpen, ""},
	"todo":        {domain.StatusOpen, ""},
	"draft":       {domain.StatusOpen, ""},
	"in progress": {domain.StatusInProgress, ""},
	"in review":   {domain.StatusInReview, ""},
	"review":      {domain.StatusInReview, ""},
	"blocked":     {domain.StatusBlocked, ""},
	"done":        {domain.StatusClosed, domain.ResolutionDone},
}

// backlogPriorities maps Backlog.md's high, medium and low.
var backlogPriorities = map[string]domain.Priority{
	"critical": domain.P0, "high": domain.P1, "medium": domain.P2, "low": domain.P3,
}

// backlogTypes maps Backlog.md's task types.
var backlogTypes = map[string]domain.IssueType{
	"bug": domain.TypeBug, "feature": domain.TypeFeature, "enhancement": domain.TypeFeature,
	"task": domain.TypeTask, "chore": domain.TypeChore, "docs": domain.TypeChore, "spike": domain.TypeTask,
	"epic": domain.TypeEpic,
}

// githubLabelTypes are the labels GitHub's default set and common
// practice use for a type.
var githubLabelTypes = map[string]domain.IssueType{
	"bug": domain.TypeBug, "enhancement": domain.TypeFeature, "feature": domain.TypeFeature,
	"chore": domain.TypeChore, "documentation": domain.TypeChore, "epic": domain.TypeEpic, "task": domain.TypeTask,
}

// mapStatus looks a status up, folding case and spaces; ok is false for
// a value the table does not know (mapped to open).
func mapStatus(table map[string]statusWord, v string) (statusWord, bool) {
	w, ok := table[strings.ToLower(strings.TrimSpace(v))]
	if !ok {
		return statusWord{Status: domain.StatusOpen}, v == ""
	}
	return w, true
}

// setStatus gives r the status and resolution table maps v to; a value
// the table does not know is kept under key in the record's extras.
func (r *Record) setStatus(table map[string]statusWord, key, v string) {
	sw, ok := mapStatus(table, v)
	if !ok {
		r.setExtra(key, v)
	}
	r.Status, r.Resolution = sw.Status, sw.Resolution
}

// setType gives r the type table maps v to; a value the table does not
// know is kept under key in the record's extras.
func (r *Record) setType(table map[string]domain.IssueType, key, v string) {
	t, ok := mapType(table, v)
	if !ok {
		r.setExtra(key, v)
	}
	r.Type = t
}

// mapType looks a type up; ok is false for a value it does not know
// (mapped to td's default type).
func mapType(table map[string]domain.IssueType, v string) (domain.IssueType, bool) {
	t, ok := table[strings.ToLower(strings.TrimSpace(v))]
	if !ok {
		return domain.DefaultType, v == ""
	}
	return t, true
}

// mapPriority reads a priority written as a number (beads: 0 to 4), as
// P0..P4, or as a word from words; ok is false for anything else (mapped
// to td's default priority).
func mapPriority(words map[string]domain.Priority, v string) (domain.Priority, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return domain.DefaultPriority, true
	}
	if len(v) == 1 && v[0] >= '0' && v[0] <= '4' {
		return domain.Priority("P" + v), true
	}
	if len(v) == 2 && (v[0] == 'P' || v[0] == 'p') && v[1] >= '0' && v[1] <= '4' {
		return domain.Priority("P" + v[1:]), true
	}
	if p, ok := words[strings.ToLower(v)]; ok {
		return p, true
	}
	return domain.DefaultPriority, false
}
