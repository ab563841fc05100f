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
	"github.com/tdproject/td/repo/sessions"
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
	notes := showNotes{rejection: sessions.LatestRejection(is.ID, ledger), handoff: sessions.LatestHandoff(is.ID, ledger), via: attributions(ledger)}
	if notes.rejection != nil {
		notes.rejection.Who = people.NameOf(s, notes.rejection.Session)
	}
	if notes.handoff != nil {
		notes.handoff.Who = people.NameOf(s, notes.handoff.Session)
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
			Todos: showTodosJSON{Items: todoItemsJSON(items), Summary: markdown.Summarize(items)}, Children: children, Claim: ic.json(is),
			Rejection: toRejectionJSON(notes.rejection), Handoff: toHandoffJSON(notes.handoff), Via: nonNilSlice(notes.via)}
	}, func() error {
		r.printIssue(is, comments, func(id string) string { return people.NameOf(s, id) }, ic.line(is), notes)
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
	// Rejection is the review that sent the issue back, while it stands;
	// Handoff the latest handoff; Via the harnesses and models whose
	// sessions wrote its ledger, with how many entries each.
	Rejection *rejectionJSON `json:"rejection"`
	Handoff   *handoffJSON   `json:"handoff"`
	Via       []viaJSON      `json:"via"`
}

// viaJSON is one harness, model and subagent that wrote ledger entries.
type viaJSON struct {
	repo.Attribution
	Entries int `json:"entries"`
}

// showNotes are what td show says of an issue's ledger beside its
// comments: the standing rejection, the latest handoff, and who made the
// changes.
type showNotes struct {
	rejection *sessions.Rejection
	handoff   *sessions.Handoff
	via       []viaJSON
}

// attributions counts a ledger's entries by the harness, model and
// subagent they name, in the order each first appears.
func attributions(entries []audit.Entry) []viaJSON {
	var out []viaJSON
	for _, e := range entries {
		a := repo.AttributionOf(e.Details)
		if a.IsZero() {
			continue
		}
		found := false
		for i := range out {
			if out[i].Attribution == a {
				out[i].Entries++
				found = true
			}
		}
		if !found {
			out = append(out, viaJSON{Attribution: a, Entries: 1})
		}
	}
	return out
}

type showTodosJSON struct {
	Items   []todoItemJSON `json:"items"`
	Summary domain.Summary `json:"summary"`
}

// printIssue prints the issue as td show does; name names a session ID
// for the reader ("Bob"), "" when it cannot; claim is its claim in words,
// "" for none worth a line.
func (r *runner) printIssue(is *repo.Issue, comments []commentJSON, name func(string) string, claim string, notes showNotes) {
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
	if notes.rejection != nil {
		st.printf("%s %s\n", st.paint(ansiRed, "rejected:"), safe(rejectionLine(notes.rejection)))
	}
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
	if len(notes.via) > 0 {
		var parts []string
		for _, v := range notes.via {
			parts = append(parts, fmt.Sprintf("%s (%s)", v.Words(), domain.Plural(v.Entries, "1 entry", fmt.Sprintf("%d entries", v.Entries))))
		}
		st.printf("agents: %s\n", safe(strings.Join(parts, "; ")))
	}
	if h := notes.handoff; h != nil {
		st.printf("handoff: %s\n", safe(handoffHeader(h, "")))
		for _, l := range handoffLines(h) {
			st.printf("  %s\n", safe(l))
		}
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
