package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
	"github.com/tdproject/td/repo/people"
	"github.com/urfave/cli/v2"
)

// ShowOptions are td show's inputs, as parsed from the command line.
type ShowOptions struct {
	// Issue is the issue to show, as typed (an ID or a prefix).
	Issue string
}

// showCommand is td show. runF, when not nil, replaces runShow.
func (r *runner) showCommand(runF func(*ShowOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one issue with its description, body and comments",
		ArgsUsage: "ID",
		Description: `ID may be any unique prefix of an issue ID, with or without the "td-" part.

Examples:
   td show td-k3x9qa
   td show k3x --json`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			o := &ShowOptions{Issue: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runShow(o)
		},
	}
}

// runShow prints the issue with its comments from the ledger, reporting
// ledger lines it cannot read on stderr.
func (r *runner) runShow(o *ShowOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	is, err := s.Issue(o.Issue)
	if err != nil {
		return err
	}
	ledger, lerrs, err := s.Ledger(is.ID)
	if err != nil {
		return err
	}
	for _, e := range lerrs {
		r.st.warnf("%v", e)
	}
	var comments []commentJSON
	for _, e := range ledger {
		// The file carries no time of its last change; the ledger does.
		if e.TS.After(is.UpdatedAt) {
			is.UpdatedAt = e.TS.UTC()
		}
		if e.Action == audit.ActionCommented {
			text, _ := e.Details["text"].(string)
			cm := commentJSON{At: jsonTime(e.TS), Session: e.Session, Text: text}
			// An imported comment is its original author's, at its
			// original time; the ledger keeps who imported it.
			if author, ok := e.Details["author"].(string); ok && e.Details["imported_from"] != nil {
				cm.Session, cm.imported = author, true
			}
			comments = append(comments, cm)
		}
	}
	kids, err := links.Children(s, is.ID)
	if err != nil {
		return err
	}
	children := make([]issueChildJSON, len(kids))
	for i, k := range kids {
		children[i] = issueChildJSON{ID: k.ID, Title: k.Title, Status: k.Status, Priority: k.Priority, Todos: markdown.Summarize(k.Todos())}
	}
	ic := r.loadClaimsOf(s, is.ID)
	return r.st.export(func() any {
		if comments == nil {
			comments = []commentJSON{}
		}
		items := is.Todos()
		return showJSON{issueJSON: toIssueJSON(is), Description: is.Description(), Body: is.Body(), Comments: comments,
			Todos: showTodosJSON{Items: todoItemsJSON(items), Summary: markdown.Summarize(items)}, Children: children, Claim: ic.json(is)}
	}, func() error {
		r.printIssue(is, comments, func(id string) string { return people.NameOf(s, id) }, ic.line(is))
		r.printIssueChildren(children)
		return nil
	})
}

// issueChildJSON is one child of an issue in td show: its state and progress.
type issueChildJSON struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Status   domain.Status   `json:"status"`
	Priority domain.Priority `json:"priority"`
	Todos    domain.Summary  `json:"todos"`
}

// printIssueChildren prints an issue's children (child_of links to it) after
// td show's page: how many are closed, then one line each with its todo
// progress.
func (r *runner) printIssueChildren(children []issueChildJSON) {
	if len(children) == 0 {
		return
	}
	closed := 0
	for _, c := range children {
		if c.Status == domain.StatusClosed {
			closed++
		}
	}
	st := r.st
	st.printf("\n%s\n", st.paint(ansiBold, fmt.Sprintf("Children: %d of %d closed", closed, len(children))))
	for _, c := range children {
		progress := ""
		if n := c.Todos.Done + c.Todos.Open + c.Todos.Blocked; n > 0 {
			progress = fmt.Sprintf("  steps %d/%d", c.Todos.Done, n)
		}
		if c.Todos.CriteriaTotal > 0 {
			progress += fmt.Sprintf("  criteria %d/%d", c.Todos.CriteriaDone, c.Todos.CriteriaTotal)
		}
		st.printf("  %s  %s  %-11s  %s%s\n", c.ID, c.Priority, st.statusColor(c.Status), safe(c.Title), progress)
	}
}

type showJSON struct {
	issueJSON
	Description string        `json:"description"`
	Body        string        `json:"body"`
	Comments    []commentJSON `json:"comments"`
	Todos       showTodosJSON `json:"todos"`
	// Children are the issues child_of this one (an epic's), [] for none.
	Children []issueChildJSON `json:"children"`
	Claim    *claimJSON       `json:"claim,omitempty"`
}

type showTodosJSON struct {
	Items   []todoItemJSON `json:"items"`
	Summary domain.Summary `json:"summary"`
}

// printIssue prints the issue as td show does; name names a session ID
// for the reader ("Bob"), "" when it cannot; claim is its claim in words,
// "" for none worth a line.
func (r *runner) printIssue(is *repo.Issue, comments []commentJSON, name func(string) string, claim string) {
	st := r.st
	// who is "Bob (ses_x)", or what is written when no name is known;
	// both come from files anyone can edit, so escaped.
	who := func(v string) string {
		if n := name(strings.TrimPrefix(v, "session:")); n != "" {
			return safe(n + " (" + v + ")")
		}
		return safe(v)
	}
	st.printf("%s  %s\n", st.paint(ansiBold, is.ID), st.paint(ansiBold, safe(is.Title)))
	minor := ""
	if is.Minor {
		minor = "  minor"
	}
	st.printf("status: %s  type: %s  priority: %s%s\n", st.statusColor(is.Status), is.Type, is.Priority, minor)
	if is.Resolution != "" {
		st.printf("resolution: %s\n", is.Resolution)
	}
	if len(is.Labels) > 0 {
		st.printf("labels: %s\n", strings.Join(safeAll(is.Labels), ", "))
	}
	st.printf("created: %s by %s\n", jsonTime(is.CreatedAt), orDash(who(is.CreatedBy)))
	st.printf("updated: %s\n", jsonTime(is.UpdatedAt))
	if is.Implementer != "" {
		st.printf("implementer: %s\n", who(is.Implementer))
	}
	if is.Assignee != "" {
		st.printf("assignee: %s\n", who(is.Assignee))
	}
	if claim != "" {
		st.printf("claim: %s\n", safe(claim))
	}
	for _, l := range is.Links {
		st.printf("link: %s %s\n", l.Kind, l.To)
	}
	if items := is.Todos(); len(items) > 0 {
		st.printf("todos: %s\n", summaryLine(markdown.Summarize(items)))
	}
	if body := strings.Trim(strings.ReplaceAll(string(markdown.WithoutEmptySections([]byte(is.Body()))), "\r\n", "\n"), "\n"); body != "" {
		st.printf("\n%s\n", safe(body))
	}
	if len(comments) > 0 {
		st.printf("\n%s\n", st.paint(ansiBold, fmt.Sprintf("Comments (%d)", len(comments))))
		for _, cm := range comments {
			by := who(cm.Session)
			if cm.imported {
				by = safe(cm.Session) + " (imported)"
			}
			st.printf("\n%s %s\n", st.paint(ansiDim, cm.At), st.paint(ansiDim, by))
			for _, line := range strings.Split(cm.Text, "\n") {
				if line == "" {
					st.printf("\n")
					continue
				}
				st.printf("  %s\n", safe(line))
			}
		}
	}
}
