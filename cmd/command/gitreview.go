package command

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// gitReviewCommands are td diff and td check: what changed in .todos between revisions, and whether it obeys td's rules.
func (r *runner) gitReviewCommands() []*cli.Command {
	return []*cli.Command{r.diffCommand(), r.checkCommand()}
}

// Output formats of td diff.
const (
	reviewFormatText     = "text"
	reviewFormatMarkdown = "markdown"
	reviewFormatJSON     = "json"
)

func (r *runner) diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "what changed in .todos: issues opened and closed, criteria and todos, links, ledger and security events",
		ArgsUsage: "[BASE [HEAD]]",
		Description: `Compares td's files at two points and says what changed in td's terms:
issues opened, closed and reopened; status, priority, assignee and title
changes; acceptance criteria and todos added, completed, dropped, blocked;
links and labels; ledger entries and security events added.

With no HEAD the later side is the work tree, uncommitted changes included,
and the earlier side is where this branch left BASE (their merge base, as in
git diff BASE...), so only this branch's own changes show: what a pull
request would carry. BASE defaults to the default branch (origin/HEAD, else
main, else master). Given both, td diff compares BASE and HEAD as they are.

--format markdown prints a section ready to paste into a pull request.

Examples:
   td diff
   td diff main
   td diff v1.2 HEAD
   td diff main --format markdown | gh pr comment --body-file -
   td diff --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: reviewFormatText, Usage: "text, markdown or json"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 0, 2, "[BASE [HEAD]]")
			if err != nil {
				return err
			}
			format := c.String("format")
			if r.st.json {
				format = reviewFormatJSON
			}
			switch format {
			case reviewFormatText, reviewFormatMarkdown, reviewFormatJSON:
			default:
				return usagef("--format %q must be text, markdown or json", format)
			}
			s, err := r.open(c)
			if err != nil {
				return err
			}
			base, head := "", ""
			if len(a) > 0 {
				base = a[0]
			}
			if len(a) > 1 {
				head = a[1]
			}
			rng, err := s.ResolveDiffRange(base, head)
			if err != nil {
				return err
			}
			d, err := s.Diff(rng)
			if err != nil {
				return err
			}
			for _, p := range d.Problems {
				r.st.warnf("%v", p)
			}
			switch format {
			case reviewFormatJSON:
				return r.st.emitJSON(diffJSON(d))
			case reviewFormatMarkdown:
				r.st.printf("%s", diffMarkdown(d))
			default:
				r.st.printf("%s", diffText(d))
			}
			return nil
		},
	}
}

// rangeWords says what a diff compared, for the first line of its output.
func rangeWords(rg *repo.DiffRange, code func(string) string) string {
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
func diffText(d *repo.TodosDiff) string {
	var b strings.Builder
	if len(d.Issues) == 0 && len(d.Security) == 0 {
		fmt.Fprintf(&b, "No changes in .todos %s.\n", rangeWords(d.Range, plainWord))
		return b.String()
	}
	fmt.Fprintf(&b, "Changes in .todos %s: %s.\n", rangeWords(d.Range, plainWord), pluralWord(len(d.Issues), "1 issue", fmt.Sprintf("%d issues", len(d.Issues))))
	for _, is := range d.Issues {
		fmt.Fprintf(&b, "\n%s %s\n", is.ID, is.Title)
		for _, e := range is.Events {
			fmt.Fprintf(&b, "  %s\n", e)
		}
		for _, e := range is.Ledger {
			fmt.Fprintf(&b, "  %s\n", ledgerSummary(e, plainWord, plainWord))
		}
		for _, e := range is.Security {
			fmt.Fprintf(&b, "  %s\n", securitySummary(e, plainWord, plainWord))
		}
	}
	if len(d.Security) > 0 {
		b.WriteString("\nProject\n")
		for _, e := range d.Security {
			fmt.Fprintf(&b, "  %s\n", securitySummary(e, plainWord, plainWord))
		}
	}
	return b.String()
}

// ledgerSummary is one ledger entry as one line: `ledger: approved by
// ses_x (reason: "…")`, with what the entry changed when it says
// (a comment's text, the fields edited, a link). id formats session IDs,
// text what people wrote.
func ledgerSummary(e audit.Entry, id, text func(string) string) string {
	s := "ledger: " + e.Action + " by " + id(orDash(e.Session))
	if t, ok := e.Details["text"].(string); ok && t != "" {
		s += ": " + text(fmt.Sprintf("%q", t))
	} else if fields, ok := e.Details["fields"].([]any); ok && len(fields) > 0 {
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = fmt.Sprint(f)
		}
		s += ": " + strings.Join(names, ", ")
	} else if kind, ok := e.Details["kind"].(string); ok {
		if to, ok := e.Details["to"].(string); ok {
			s += ": " + text(kind+" "+to)
		}
	}
	if e.Reason != "" {
		s += " (reason: " + text(fmt.Sprintf("%q", e.Reason)) + ")"
	}
	return s
}

// securitySummary is one security event as one line.
func securitySummary(e audit.SecurityEvent, id, text func(string) string) string {
	s := "security: " + id(e.Kind) + " by " + id(orDash(e.SessionID))
	if e.Reason != "" {
		s += ": " + text(fmt.Sprintf("%q", e.Reason))
	}
	return s
}

// diffMarkdown prints a diff as a section of a pull request description: a
// heading, one bullet per issue, a sub-bullet per change, checkboxes for
// acceptance criteria.
func diffMarkdown(d *repo.TodosDiff) string {
	var b strings.Builder
	code := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }
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
			fmt.Fprintf(&b, "  - %s\n", ledgerSummary(e, code, mdEscape))
		}
		for _, e := range is.Security {
			fmt.Fprintf(&b, "  - :warning: %s\n", securitySummary(e, code, mdEscape))
		}
	}
	if len(d.Security) > 0 {
		b.WriteString("- **Project**\n")
		for _, e := range d.Security {
			fmt.Fprintf(&b, "  - :warning: %s\n", securitySummary(e, code, mdEscape))
		}
	}
	return b.String()
}

// eventMarkdown is one change as a sub-bullet's text: criteria get a
// checkbox showing their state after the change, and dropped or deleted
// ones are struck through.
func eventMarkdown(e repo.IssueEvent) string {
	text := mdEscape(e.String())
	if !e.IsCriterion() {
		return text
	}
	switch e.Suffix() {
	case repo.ItemDropped, repo.ItemDeleted:
		return "~~" + text + "~~"
	case repo.ItemCompleted:
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
	repo.IssueEvent
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
func diffJSON(d *repo.TodosDiff) map[string]any {
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

func (r *runner) checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "check .todos against td's rules, and with --base against history (for CI and pre-commit)",
		Description: `Reads every file under .todos with td's parsers and reports each violation
as path:line: message, sorted, then a count on stderr; exit 1 if any:

   parse            every issue, ledger, session, config and security event parses
   file_name        file names are IDs, and an issue's id matches its file name
   one_in_progress  at most one todo of an issue is in progress
   link_target      links point at issues that exist
   link_cycle       child_of, blocked_by and duplicate_of links form no cycle
   security_chain   the hash chain of .todos/security_events.jsonl verifies

With --base REV, td check also compares the work tree with where this branch
left REV (their merge base; REV itself when the branch is up to date):

   append_only      every ledger line and security event there is still there,
                    unchanged and in order (lines a union merge interleaved
                    after them are fine)
   written_once     every session identity file there is unchanged
   review_policy    approvals and closures added since obey the review policy,
                    given the ledger before them and the commits' metadata,
                    and their exceptions are audited
   criterion_drop   criteria dropped or deleted since were dropped by an
                    operator session (a criterion_dropped ledger entry)

Without --base those four are skipped, and td check says so.

Examples:
   td check
   td check --base main
   td check --base origin/main --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base", Usage: "also check the history since this `REV` (its merge base with HEAD)"},
		},
		Action: func(c *cli.Context) error {
			_, s, err := r.openArgs(c, 0, 0, "[--base REV]")
			if err != nil {
				return err
			}
			rep, err := s.Check(repo.CheckOptions{Base: c.String("base")})
			if err != nil {
				return err
			}
			if r.st.json {
				if err := r.st.emitJSON(map[string]any{"ok": rep.OK(), "base": rep.Base, "base_commit": rep.BaseCommit,
					"files": rep.Files, "issues": rep.Issues, "skipped": rep.Skipped, "violations": rep.Violations}); err != nil {
					return err
				}
			} else {
				// One write: a broken tree can have thousands of lines.
				var b strings.Builder
				for _, v := range rep.Violations {
					b.WriteString(v.String())
					b.WriteByte('\n')
				}
				r.st.printf("%s", b.String())
				fmt.Fprintln(r.st.errOut, checkSummary(rep))
			}
			if !rep.OK() {
				return silentFailure{}
			}
			return nil
		},
	}
}

// checkSummary is td check's last line: the count and what was compared.
func checkSummary(rep *repo.CheckReport) string {
	n := len(rep.Violations)
	s := fmt.Sprintf("td check: %s in %s (%s)", pluralWord(n, "1 violation", fmt.Sprintf("%d violations", n)),
		pluralWord(rep.Files, "1 file", fmt.Sprintf("%d files", rep.Files)), pluralWord(rep.Issues, "1 issue", fmt.Sprintf("%d issues", rep.Issues)))
	if rep.Base != "" {
		return s + fmt.Sprintf(", against %s (merge base %s).", rep.Base, shortHash(rep.BaseCommit))
	}
	return s + fmt.Sprintf("; skipped %s, which need a base: pass --base REV.", strings.Join(rep.Skipped, ", "))
}
