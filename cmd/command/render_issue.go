package command

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
)

// issueJSON is the stable JSON shape of an issue.
type issueJSON struct {
	ID          string            `json:"id"`
	Title       string            `json:"title"`
	Status      domain.Status     `json:"status"`
	Type        domain.IssueType  `json:"type"`
	Priority    domain.Priority   `json:"priority"`
	Minor       bool              `json:"minor"`
	Labels      []string          `json:"labels"`
	CreatedBy   string            `json:"created_by"`
	Implementer string            `json:"implementer"`
	Assignee    string            `json:"assignee"`
	Resolution  domain.Resolution `json:"resolution"`
	Links       []domain.Link     `json:"links"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	Path        string            `json:"path"`
	// Conflicted is present, true, when the file holds a merge's
	// conflict markers (td resolve); the other fields are the ours side's.
	Conflicted bool `json:"conflicted,omitempty"`
}

func toIssueJSON(is *repo.Issue) issueJSON {
	j := issueJSON{ID: is.ID, Title: is.Title, Status: is.Status, Type: is.Type, Priority: is.Priority,
		Minor: is.Minor, Labels: is.Labels, CreatedBy: is.CreatedBy, Implementer: is.Implementer,
		Assignee: is.Assignee, Resolution: is.Resolution, Links: is.Links,
		CreatedAt: jsonTime(is.CreatedAt), UpdatedAt: jsonTime(is.UpdatedAt), Path: is.Path, Conflicted: is.Conflicted}
	if j.Labels == nil {
		j.Labels = []string{}
	}
	if j.Links == nil {
		j.Links = []domain.Link{}
	}
	return j
}

func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// commentJSON is one comment of an issue's ledger.
type commentJSON struct {
	At      string `json:"at"`
	Session string `json:"session"`
	Text    string `json:"text"`
	// imported marks a comment an import brought, whose Session is the
	// author the source named.
	imported bool
}

// printIssueTable prints issues one a line, as td list does, with the
// claim of each one whose claim is worth a word (ic may be nil).
func (r *runner) printIssueTable(list []*repo.Issue, ic *issueClaims, kids map[string]links.ChildCount) {
	if len(list) == 0 {
		r.st.printf("No issues.\n")
		return
	}
	statusW := len("in_progress")
	var b strings.Builder
	b.Grow(len(list) * 96) // a row is about 80 bytes: no copying as it grows
	for _, is := range list {
		b.WriteString(r.st.paint(ansiBold, is.ID))
		b.WriteString("  ")
		b.WriteString(string(is.Priority))
		b.WriteString("  ")
		b.WriteString(r.st.statusColor(is.Status))
		b.WriteString(strings.Repeat(" ", statusW-len(is.Status)+2))
		b.WriteString(string(is.Type))
		b.WriteString(strings.Repeat(" ", max(0, 7-utf8.RuneCountInString(string(is.Type)))+2))
		b.WriteString(safe(is.Title))
		if len(is.Labels) > 0 {
			b.WriteString("  ")
			b.WriteString(r.st.paint(ansiDim, "["+strings.Join(safeAll(is.Labels), ", ")+"]"))
		}
		if k := kids[is.ID]; k.Total > 0 {
			b.WriteString("  ")
			b.WriteString(fmt.Sprintf("children %d/%d closed", k.Closed, k.Total))
		}
		if is.Conflicted {
			b.WriteString("  ")
			b.WriteString(r.st.paint(ansiBold, "(merge conflict: td resolve)"))
		}
		if line := ic.short(is); line != "" {
			b.WriteString("  ")
			b.WriteString(r.st.paint(ansiDim, "("+safe(line)+")"))
		}
		b.WriteByte('\n')
	}
	io.WriteString(r.st.out, b.String())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
