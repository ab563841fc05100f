// Package board holds the board of td: the issues a team is working on,
// in one column per status (open, in progress, blocked, in review, closed
// recently), each card with what a person glances at: priority, who it is
// assigned to by name, todo progress, open criteria, an epic's children
// and a claim held elsewhere. It is the model only, shared by td board's
// terminal rendering and any other view of the board; it reads the store
// and writes nothing.
package board

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/links"
	"github.com/tdproject/td/repo/people"
)

// DefaultRecentDays is how far back the closed column looks when the
// filter does not say.
const DefaultRecentDays = 7

// Filter selects the cards of a board. The zero value shows every issue
// that is not closed, and those closed in the last DefaultRecentDays.
type Filter struct {
	// Labels keeps the issues that carry every one of these labels.
	Labels []string
	// Assignee keeps the issues assigned to this person or session, matched
	// as td list --assignee matches it (a person's name, email or a session).
	Assignee string
	// Epic keeps the issues below this one by child_of links, at any depth:
	// an ID or a unique prefix. "" for all.
	Epic string
	// Now is the time "recently" counts back from; zero for the store's clock.
	Now time.Time
	// RecentDays is how many days a closed issue stays on the board; 0 for
	// DefaultRecentDays.
	RecentDays int
}

// Board is the issues a filter selects, in columns.
type Board struct {
	// Columns are always the five of Columns(), in that order, each
	// present even when empty.
	Columns []Column `json:"columns"`
	// Epic is the epic the board is narrowed to, its full ID; "" for none.
	Epic string `json:"epic,omitempty"`
	// RecentDays is how many days back the closed column looks.
	RecentDays int `json:"recent_days"`
	// Unreadable are the issue files td could not read, as path:line:
	// reason errors, for the caller to report; the board shows the rest.
	Unreadable []error `json:"-"`
}

// Column is the cards of one status.
type Column struct {
	// Key is the status the column holds: "open", "in_progress",
	// "blocked", "in_review" or "closed".
	Key string `json:"key"`
	// Title is the column's heading for people.
	Title string `json:"title"`
	// Cards are sorted as td list sorts: most urgent, then oldest first.
	Cards []Card `json:"cards"`
}

// Card is one issue on the board.
type Card struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Priority string `json:"priority"`
	Type     string `json:"type"`
	Status   string `json:"status"`
	// Assignee is the assigned person's name where td knows it ("Bob",
	// "claude agent of Bob"), else the assignee as written without
	// "session:"; "" for nobody.
	Assignee string   `json:"assignee"`
	Labels   []string `json:"labels"`
	// Done and Total count the checklist as td show does: steps done of
	// steps not dropped, plus criteria met of criteria not dropped.
	Done  int `json:"done"`
	Total int `json:"total"`
	// OpenCriteria is how many acceptance criteria are not met yet.
	OpenCriteria int `json:"open_criteria"`
	// ChildrenClosed and Children count the issues child_of this one.
	ChildrenClosed int `json:"children_closed"`
	Children       int `json:"children"`
	// ChildrenUnreadable counts, among Children, the issue files td
	// could not read whose text still names this issue as their parent:
	// counted, so an epic's progress does not silently grow.
	ChildrenUnreadable int `json:"children_unreadable,omitempty"`
	// Claim is a claim that tells the reader something the issue file
	// does not (held in another work tree, on another machine, or by
	// another session), in a few words: "claimed by Bob in ../app-2 until
	// 14:05 UTC"; "" for none.
	Claim string `json:"claim,omitempty"`
	// Updated is the time of the issue's last change (its ledger's last
	// entry); set for closed cards only, which are chosen by it.
	Updated time.Time `json:"updated,omitzero"`
}

// column keys and titles, in board order.
var columns = []struct {
	status domain.Status
	title  string
}{
	{domain.StatusOpen, "Open"},
	{domain.StatusInProgress, "In progress"},
	{domain.StatusBlocked, "Blocked"},
	{domain.StatusInReview, "In review"},
	{domain.StatusClosed, "Closed"}, // titled by ClosedTitle
}

// Build lays out the board of the store's issues that f selects. An
// unknown or ambiguous f.Epic is the store's not-found or invalid error.
func Build(s *repo.Store, f Filter) (*Board, error) {
	if f.Now.IsZero() {
		f.Now = s.Now()
	}
	if f.RecentDays == 0 {
		f.RecentDays = DefaultRecentDays
	}
	if f.RecentDays < 0 {
		return nil, repo.Errorf(repo.CodeInvalid, "the closed column cannot look back %d days; give 1 or more", f.RecentDays)
	}
	b := &Board{RecentDays: f.RecentDays}
	// The claims and the ledger facts do not depend on the issues: they
	// are read on other goroutines while the issues are.
	claimsRead := claims.LoadAsync(s)
	go s.PreloadLedgerFacts()
	var below map[string]bool
	all, perrs, err := s.List(repo.Filter{All: true})
	if err != nil {
		return nil, err
	}
	b.Unreadable = perrs
	lostKids := unreadableChildren(s, perrs)
	if strings.TrimSpace(f.Epic) != "" {
		epic, err := s.Issue(f.Epic)
		if err != nil {
			return nil, err
		}
		b.Epic = epic.ID
		below = links.Descendants(all, epic.ID)
	}
	// all is sorted as td list sorts; shown keeps that order.
	match := s.ResolveAssignee(repo.Filter{All: true, Labels: f.Labels, Assignee: f.Assignee})
	var shown, closed []*repo.Issue
	for _, is := range all {
		if is.Conflicted && is.Status == "" {
			continue // no status to put it under: td list and td resolve name it
		}
		if !match.Match(is) || (below != nil && !below[is.ID]) {
			continue
		}
		if is.Status == domain.StatusClosed {
			closed = append(closed, is)
		}
		shown = append(shown, is)
	}
	// Only closed issues need their last change, from the ledgers.
	s.FillUpdated(closed)
	since := f.Now.Add(-time.Duration(f.RecentDays) * 24 * time.Hour)
	shown = slices.DeleteFunc(shown, func(is *repo.Issue) bool {
		return is.Status == domain.StatusClosed && is.UpdatedAt.Before(since)
	})

	kids := links.ChildCounts(all)
	cs, err := claimsRead()
	if err != nil {
		s.Warnf("claims: %v", err)
	}
	if cs.Len() > 0 {
		ids := make([]string, len(shown))
		for i, is := range shown {
			ids[i] = is.ID
		}
		cs.Prefetch(ids)
	}
	// Sessions without a file here (another clone's, never committed)
	// are named by their ID without trying to read each.
	nameOf := people.AssigneeNamer(s)

	// The column of each shown issue, -1 for a status td does not know
	// (td check reports it).
	cols := make([]int, len(shown))
	counts := make([]int, len(columns))
	for i, is := range shown {
		cols[i] = -1
		for c := range columns {
			if columns[c].status == is.Status {
				cols[i] = c
				counts[c]++
				break
			}
		}
	}
	for i, c := range columns {
		title := c.title
		if c.status == domain.StatusClosed {
			title = ClosedTitle(b.RecentDays)
		}
		b.Columns = append(b.Columns, Column{Key: string(c.status), Title: title, Cards: make([]Card, 0, counts[i])})
	}
	noLabels := []string{} // shown as [] rather than null
	for i, is := range shown {
		col := cols[i]
		if col < 0 {
			continue
		}
		labels := noLabels
		if len(is.Labels) > 0 {
			labels = is.Labels // the issue is read for this board alone
		}
		t := is.Tally()
		card := Card{ID: is.ID, Title: is.Title, Priority: string(is.Priority), Type: string(is.Type), Status: string(is.Status),
			Labels: labels,
			Done:   t.Done + t.CriteriaDone, Total: t.Done + t.Open + t.Blocked + t.CriteriaTotal,
			OpenCriteria: t.CriteriaTotal - t.CriteriaDone}
		if is.Assignee != "" {
			card.Assignee = nameOf(is.Assignee)
		}
		if k := kids[is.ID]; k.Total > 0 {
			card.Children, card.ChildrenClosed = k.Total, k.Closed
		}
		if n := lostKids[is.ID]; n > 0 {
			card.Children += n
			card.ChildrenUnreadable = n
		}
		if is.Status == domain.StatusClosed {
			card.Updated = is.UpdatedAt
		}
		if cs.Len() > 0 {
			if c := cs.Shown(is.ID, is.Status); cs.Informs(c, is.Implementer, strings.TrimPrefix(is.Assignee, "session:")) {
				card.Claim = ClaimText(cs, c, f.Now)
			}
		}
		b.Columns[col].Cards = append(b.Columns[col].Cards, card)
	}
	return b, nil
}

// childOfLine finds a child_of link in an issue file's text, as td writes
// it, without parsing the file.
var childOfLine = regexp.MustCompile(`(?m)\{\s*kind:\s*child_of\s*,\s*to:\s*(td-[a-z0-9]+)\s*\}`)

// unreadableChildren counts, per parent, the unreadable issue files whose
// text links them child_of it: a broken file still counts in its epic.
func unreadableChildren(s *repo.Store, perrs []error) map[string]int {
	out := map[string]int{}
	for _, e := range perrs {
		var pe *repo.ParseError
		if !errors.As(e, &pe) {
			continue
		}
		rel, ok := strings.CutPrefix(pe.Path, repo.TodosDir+"/"+repo.IssuesDir+"/")
		if !ok || strings.Contains(rel, "/") {
			continue
		}
		data, err := s.ReadRaw(repo.IssuesDir, rel)
		if err != nil {
			continue
		}
		if m := childOfLine.FindSubmatch(data); m != nil {
			out[string(m[1])]++
		}
	}
	return out
}

// ClosedTitle is the closed column's title, the same on the terminal, in
// --json and on the pages: "Closed, last 7 days", "Closed, last day".
func ClosedTitle(days int) string {
	if days == 1 {
		return "Closed, last day"
	}
	return fmt.Sprintf("Closed, last %d days", days)
}

// ClaimText words a claim in a few words for a card, from the point of
// view of the work tree reading it: "claimed by Bob in ../app-2 until
// 14:05 UTC", "claimed by claude agent of Bob on laptop in /src/app
// until 2026-11-28 09:00 UTC", "claimed by Bob in this work tree, lease
// ended 14:05 UTC". The time has no date when it falls on now's day.
func ClaimText(cs *claims.Set, c *domain.Claim, now time.Time) string {
	who := HolderName(c.Actor)
	var where string
	switch {
	case c.Host != "" && c.Host != cs.HereHost:
		where = "on " + c.Host + " in " + c.Worktree
	case c.Worktree == cs.Here:
		where = "in this work tree"
	default:
		where = "in " + c.Worktree
		if rel, err := filepath.Rel(cs.Here, c.Worktree); err == nil && cs.Here != "" {
			where = "in " + filepath.ToSlash(rel)
		}
	}
	at := c.Expires.UTC()
	when := at.Format("15:04") + " UTC"
	if y, m, d := at.Date(); y != now.UTC().Year() || m != now.UTC().Month() || d != now.UTC().Day() {
		when = at.Format("2006-01-02 15:04") + " UTC"
	}
	if c.Expired(now) {
		return fmt.Sprintf("claimed by %s %s, lease ended %s", who, where, when)
	}
	return fmt.Sprintf("claimed by %s %s until %s", who, where, when)
}

// HolderName is the claim holder as people read it: the person's name
// (or email when the identity has no name), "AGENT agent of NAME" for an
// agent.
func HolderName(a domain.Actor) string {
	n, e := repo.SplitIdentity(a.Identity)
	if n == "" {
		n = e
	}
	if n == "" {
		n = "unknown"
	}
	if !a.Human() {
		return string(a.Agent) + " agent of " + n
	}
	return n
}
