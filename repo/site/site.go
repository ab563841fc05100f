// Package site builds the pages of td's people's view: the board, one page
// per issue and a page per revision range, as plain values that
// cmd/command/web renders to HTML for td board --html and td serve.
//
// It is a use case like the others under repo/: it takes the store and a
// plain request and returns values, and knows nothing of HTML or HTTP. It
// has a room of its own because a page gathers what several use cases
// know (the board, an issue's links, children and claim, its log, a diff)
// and because building every page of a large repository at once needs
// reads the single-issue commands do not: every issue file and ledger in
// parallel, and one walk of git history for the commits of all issues.
//
// Pages link to each other by relative paths (BoardPath, IssuePath,
// DiffPath) so a generated site works from file:// and any static host.
package site

import (
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/review"
)

// Paths of the pages, relative to the site's root.
const (
	// BoardPath is the board, the site's front page.
	BoardPath = "index.html"
	// StatsPath is the stats page: counts, flow per week, cycle time.
	StatsPath = "stats.html"
	// StylePath is the one style sheet every page links to.
	StylePath = "style.css"
	// IssuesDir holds one page per issue.
	IssuesDir = "issues"
	// DiffsDir holds one page per revision range.
	DiffsDir = "diff"
)

// IssuePath is the page of the issue id, relative to the site's root.
func IssuePath(id string) string { return IssuesDir + "/" + id + ".html" }

// DiffPath is the page of the range base..head ("" head: the work tree),
// relative to the site's root. Characters a file name should not carry
// become "_".
func DiffPath(base, head string) string {
	return DiffsDir + "/" + RangeName(base, head) + ".html"
}

// RangeName is a range as td diff is given it: "main" (to the work tree)
// or "main..feature".
func RangeName(base, head string) string {
	name := base
	if head != "" {
		name += ".." + head
	}
	return pathSafe(name)
}

// ParseRange reads "BASE", "BASE..HEAD" or "BASE...HEAD" (the same: td
// diff compares from where HEAD left BASE only without a HEAD) into its
// two revisions.
func ParseRange(r string) (base, head string) {
	if b, h, ok := strings.Cut(r, "..."); ok {
		return b, h
	}
	if b, h, ok := strings.Cut(r, ".."); ok {
		return b, h
	}
	return r, ""
}

func pathSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// Board is the board page: the board's columns, and the repository it is
// the board of.
type Board struct {
	// Repo names the repository: its directory's name.
	Repo    string
	Columns []board.Column
	// Diffs are the revision range pages the site holds, for its
	// navigation.
	Diffs []DiffLink
	// Generated is when the page was built, by td's clock.
	Generated time.Time
}

// DiffLink names a diff page.
type DiffLink struct {
	Name string // "main..HEAD", as td diff is given it
	Path string
}

// Ref is an issue as another page mentions it: its title and status, or
// Missing when no readable issue has the ID.
type Ref struct {
	ID      string
	Title   string
	Status  domain.Status
	Missing bool
}

// Issue is an issue's page.
type Issue struct {
	Repo string
	Ref
	Type       domain.IssueType
	Priority   domain.Priority
	Resolution domain.Resolution
	Minor      bool
	Labels     []string
	// CreatedBy, Implementer and Assignee are names for people ("Bob
	// (ses_x)") where td knows them, else what the file says.
	CreatedBy, Implementer, Assignee string
	CreatedAt, UpdatedAt             time.Time
	// Claim words who holds the issue's claim, "" for none.
	Claim string
	// Description is the free description, markdown.
	Description string
	Criteria    []Todo
	Phases      []Phase
	Summary     domain.Summary
	// Parent is the issue this one is child_of (its epic), nil for none.
	Parent *Ref
	// Links are the issue's links, its own then those others store about
	// it (parent_of, blocks, duplicated_by, relates_to).
	Links []Link
	// Children are the issues child_of this one, with their progress.
	Children       []Child
	ChildrenClosed int
	// Log is the issue's ledger and the commits that touched it, oldest
	// first; Described says whether each commit carries what it changed
	// (review.Log's reading) or only its subject.
	Log       []LogEntry
	Described bool
	InGit     bool
	// Problems are ledger lines td could not read.
	Problems []string
}

// Todo is one criterion or step.
type Todo struct {
	Text   string
	Status domain.TodoStatus
	Notes  []string
}

// Phase is the steps under one phase heading ("" before the first).
type Phase struct {
	Name  string
	Todos []Todo
}

// Link is one link of an issue, to another issue.
type Link struct {
	Kind domain.LinkKind
	To   Ref
}

// Child is a child issue with its checklist's progress.
type Child struct {
	Ref
	Done, Total int
}

// LogEntry is one entry of an issue's log: a ledger entry or a commit.
type LogEntry struct {
	Time time.Time
	// Who names the ledger entry's session for people, "" when unknown.
	Who    string
	Ledger *audit.Entry
	Commit *Commit
}

// Commit is a commit that touched an issue's files.
type Commit struct {
	Hash    string
	Author  string
	Subject string
	// Summary is what the commit changed in the issue in one line
	// (review.LogCommit.Summary), "" when not described.
	Summary string
}

// Diff is a revision range's page: td diff's reading of it, issue by
// issue, as a pull request would show it.
type Diff struct {
	Repo string
	Name string // the range as given: "main", "main..feature"
	*review.TodosDiff
	// Who names sessions for people; Titles is each changed issue's Ref
	// in the later side.
	Who      map[string]string
	Problems []string
}
