package command

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/review"
)

// rangeWords says what a diff compared, for the first line of its output.
func rangeWords(rg *review.DiffRange, code func(string) string) string {
	if rg.MergeBase {
		return fmt.Sprintf("from %s (merge base %s) to the work tree", code(rg.BaseRev), code(shortHash(rg.Base)))
	}
	head := "the work tree"
	if rg.Head != "" {
		head = fmt.Sprintf("%s (%s)", code(rg.HeadRev), code(shortHash(rg.Head)))
	}
	return fmt.Sprintf("from %s (%s) to %s", code(rg.BaseRev), code(shortHash(rg.Base)), head)
}

func plainWord(s string) string { return s }

// diffText prints a diff grouped by issue: "td-xxxx Title", then one
// indented line per change.
func diffText(d *review.TodosDiff, name func(string) string) string {
	var b strings.Builder
	if len(d.Issues) == 0 && len(d.Security) == 0 {
		fmt.Fprintf(&b, "No changes in .todos %s.\n", rangeWords(d.Range, plainWord))
		return b.String()
	}
	fmt.Fprintf(&b, "Changes in .todos %s: %s.\n", rangeWords(d.Range, plainWord), domain.Plural(len(d.Issues), "1 issue", fmt.Sprintf("%d issues", len(d.Issues))))
	for _, is := range d.Issues {
		fmt.Fprintf(&b, "\n%s %s\n", is.ID, is.Title)
		for _, e := range is.Events {
			fmt.Fprintf(&b, "  %s\n", e)
		}
		for _, e := range is.Ledger {
			fmt.Fprintf(&b, "  %s\n", ledgerSummary(e, name, plainWord, plainWord))
		}
		for _, e := range is.Security {
			fmt.Fprintf(&b, "  %s\n", securitySummary(e, name, plainWord, plainWord))
		}
	}
	if len(d.Security) > 0 {
		b.WriteString("\nProject\n")
		for _, e := range d.Security {
			fmt.Fprintf(&b, "  %s\n", securitySummary(e, name, plainWord, plainWord))
		}
	}
	return b.String()
}

// ledgerSummary is one ledger entry as one line: `ledger: approved by
// Bob (ses_x) (reason: "…")`, with what the entry changed when it says
// (a comment's text, the fields edited, a link). name gives a session's
// name ("" when unknown), id formats session IDs, text what people wrote.
func ledgerSummary(e audit.Entry, name, id, text func(string) string) string {
	s := "ledger: " + e.Action + " by " + sessionWords(e.Session, name, id)
	switch said, fields, link := e.Change(); {
	case said != "":
		s += ": " + text(fmt.Sprintf("%q", said))
	case len(fields) > 0:
		s += ": " + strings.Join(fields, ", ")
	case link != "":
		s += ": " + text(link)
	}
	if e.Reason != "" {
		s += " (reason: " + text(fmt.Sprintf("%q", e.Reason)) + ")"
	}
	return s
}

// sessionWords names a session as people read it: "Bob (ses_x)", the ID
// alone when the session has no name this branch knows.
func sessionWords(session string, name, id func(string) string) string {
	if session == "" {
		return id("-")
	}
	if n := name(session); n != "" {
		return n + " (" + id(session) + ")"
	}
	return id(session)
}

// securitySummary is one security event as one line.
func securitySummary(e audit.SecurityEvent, name, id, text func(string) string) string {
	s := "security: " + id(e.Kind) + " by " + sessionWords(e.SessionID, name, id)
	if e.Reason != "" {
		s += ": " + text(fmt.Sprintf("%q", e.Reason))
	}
	return s
}

// diffMarkdown prints a diff as a section of a pull request description: a
// heading, one bullet per issue, a sub-bullet per change, checkboxes for
// acceptance criteria.
func diffMarkdown(d *review.TodosDiff, name func(string) string) string {
	var b strings.Builder
	code := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }
	plainName := name
	name = func(id string) string { return mdEscape(plainName(id)) }
	b.WriteString("### td: issues and todos\n\n")
	if len(d.Issues) == 0 && len(d.Security) == 0 {
		fmt.Fprintf(&b, "No changes in `.todos` %s.\n", rangeWords(d.Range, code))
		return b.String()
	}
	fmt.Fprintf(&b, "Changes in `.todos` %s.\n\n", rangeWords(d.Range, code))
	for _, is := range d.Issues {
		fmt.Fprintf(&b, "- **%s** %s\n", is.ID, mdEscape(is.Title))
		for _, e := range is.Events {
			fmt.Fprintf(&b, "  - %s\n", eventMarkdown(e))
		}
		for _, e := range is.Ledger {
			fmt.Fprintf(&b, "  - %s\n", ledgerSummary(e, name, code, mdEscape))
		}
		for _, e := range is.Security {
			fmt.Fprintf(&b, "  - :warning: %s\n", securitySummary(e, name, code, mdEscape))
		}
	}
	if len(d.Security) > 0 {
		b.WriteString("- **Project**\n")
		for _, e := range d.Security {
			fmt.Fprintf(&b, "  - :warning: %s\n", securitySummary(e, name, code, mdEscape))
		}
	}
	return b.String()
}

// eventMarkdown is one change as a sub-bullet's text: criteria get a
// checkbox showing their state after the change, and dropped or deleted
// ones are struck through.
func eventMarkdown(e review.IssueEvent) string {
	text := mdEscape(e.String())
	if !e.IsCriterion() {
		return text
	}
	switch e.Suffix() {
	case review.ItemDropped, review.ItemDeleted:
		return "~~" + text + "~~"
	case review.ItemCompleted:
		return "[x] " + text
	}
	if e.To == "completed" {
		return "[x] " + text
	}
	return "[ ] " + text
}

// mdEscape keeps user text from being read as markdown markup: code
// spans, emphasis, links, HTML, tables and strikethrough. An underscore
// inside a word (in_progress) is left alone, as GitHub reads it literally.
func mdEscape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	word := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	for i, r := range rs {
		if strings.ContainsRune("\\`*[]<|~", r) || (r == '_' && !(word(i-1) && word(i+1))) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// diffEventJSON is an issue event with its one-line summary.
type diffEventJSON struct {
	review.IssueEvent
	Summary string `json:"summary"`
}

type diffIssueJSON struct {
	ID       string                `json:"id"`
	Title    string                `json:"title"`
	Events   []diffEventJSON       `json:"events"`
	Ledger   []audit.Entry         `json:"ledger"`
	Security []audit.SecurityEvent `json:"security_events"`
}

// diffJSON gives the diff stable field names.
func diffJSON(d *review.TodosDiff) map[string]any {
	issues := []diffIssueJSON{}
	for _, is := range d.Issues {
		j := diffIssueJSON{ID: is.ID, Title: is.Title, Events: []diffEventJSON{}, Ledger: is.Ledger, Security: is.Security}
		for _, e := range is.Events {
			j.Events = append(j.Events, diffEventJSON{IssueEvent: e, Summary: e.String()})
		}
		issues = append(issues, j)
	}
	problems := []string{}
	for _, p := range d.Problems {
		problems = append(problems, p.Error())
	}
	return map[string]any{"range": d.Range, "issues": issues, "security_events": d.Security, "problems": problems}
}
