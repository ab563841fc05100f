package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/urfave/cli/v2"
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
}

func toIssueJSON(is *repo.Issue) issueJSON {
	j := issueJSON{ID: is.ID, Title: is.Title, Status: is.Status, Type: is.Type, Priority: is.Priority,
		Minor: is.Minor, Labels: is.Labels, CreatedBy: is.CreatedBy, Implementer: is.Implementer,
		Assignee: is.Assignee, Resolution: is.Resolution, Links: is.Links,
		CreatedAt: jsonTime(is.CreatedAt), UpdatedAt: jsonTime(is.UpdatedAt), Path: is.Path}
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

func (r *runner) createCommand() *cli.Command {
	return &cli.Command{
		Name:      "create",
		Aliases:   []string{"new"},
		Usage:     "file a new issue",
		ArgsUsage: "TITLE",
		Description: `Creates .todos/issues/<id>.md and records "created" in its ledger. Inside a
session bound to an issue, the new issue is linked child_of the bound one
(--no-parent to skip): work an agent discovers is filed under its task.

Examples:
   td create "Sign in with GitHub" --type feature -p P1 -l auth
   td create "Fix typo in README" --minor
   echo "Steps to reproduce…" | td create "Crash on start" --type bug --description-file -`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "task", Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "P0 (most urgent) to P4"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "a label; repeat or separate with commas"},
			&cli.BoolFlag{Name: "minor", Usage: "a minor issue: anyone may approve it, its implementer included"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "the description (markdown)"},
			&cli.StringFlag{Name: "description-file", Usage: "read the description from `FILE` (- for standard input)"},
			&cli.BoolFlag{Name: "no-parent", Usage: "inside a bound session, do not link the new issue child_of the bound one"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TITLE [flags]")
			if err != nil {
				return err
			}
			desc, err := r.textOrFile(c, c.String("description"), "description-file", "--description or --description-file")
			if err != nil {
				return err
			}
			s, se, err := r.openActor(c)
			if err != nil {
				return err
			}
			parent := ""
			if !c.Bool("no-parent") {
				if parent, err = s.BoundIssue(se); err != nil {
					return err
				}
			}
			is, err := issues.Create(s, se, issues.CreateOptions{
				Title: strings.Join(a, " "), Type: c.String("type"), Priority: c.String("priority"),
				Labels: c.StringSlice("label"), Minor: c.Bool("minor"), Description: desc, Parent: parent,
			})
			if err != nil {
				return err
			}
			if r.st.json {
				return r.st.emitJSON(toIssueJSON(is))
			}
			r.st.printf("Created %s: %s%s\n", r.st.paint(ansiBold, is.ID), is.Title, parentNote(is))
			return nil
		},
	}
}

func (r *runner) listCommand() *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list issues (open ones by default), most urgent and oldest first",
		Description: `Lists issues sorted by priority, then age. Closed issues are left out unless
--all or --status asks for them. A file td cannot read is reported on stderr
as path:line: reason and the rest are listed.

Examples:
   td list
   td list --status in_progress --label auth
   td list --all --json
   td list --reviewable`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "status", Aliases: []string{"s"}, Usage: "only these statuses (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "include closed issues"},
			&cli.BoolFlag{Name: "reviewable", Usage: "only issues in review that you may approve (same as td reviewable)"},
		}, filterFlags()...),
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			if c.Bool("reviewable") {
				return r.reviewableAction(c)
			}
			s, err := r.open(c)
			if err != nil {
				return err
			}
			f := filterOf(c)
			f.Statuses, f.All = splitValues(c.StringSlice("status")), c.Bool("all")
			list, perrs, err := s.List(f)
			if err != nil {
				return err
			}
			for _, pe := range perrs {
				r.st.warnf("%v", pe)
			}
			if r.st.json {
				return writeIssueListJSON(r.st.out, list)
			}
			r.printIssueTable(list)
			return nil
		},
	}
}

// filterFlags are the issue filters td list and td ready share.
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "type", Aliases: []string{"t"}, Usage: "only these types (repeatable)"},
		&cli.StringSliceFlag{Name: "priority", Aliases: []string{"p"}, Usage: "only these priorities (repeatable)"},
		&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "only issues carrying every one of these labels"},
		&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "only issues assigned to this (session:ID, or a name)"},
	}
}

// filterOf reads the filterFlags.
func filterOf(c *cli.Context) repo.Filter {
	return repo.Filter{
		Types: splitValues(c.StringSlice("type")), Priorities: splitValues(c.StringSlice("priority")),
		Labels: splitValues(c.StringSlice("label")), Assignee: c.String("assignee"),
	}
}

func splitValues(in []string) []string {
	var out []string
	for _, v := range in {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (r *runner) printIssueTable(list []*repo.Issue) {
	if len(list) == 0 {
		r.st.printf("No issues.\n")
		return
	}
	statusW := len("in_progress")
	var b strings.Builder
	for _, is := range list {
		b.WriteString(r.st.paint(ansiBold, is.ID))
		b.WriteString("  ")
		b.WriteString(string(is.Priority))
		b.WriteString("  ")
		b.WriteString(r.st.statusColor(is.Status))
		b.WriteString(strings.Repeat(" ", statusW-len(is.Status)+2))
		b.WriteString(fmt.Sprintf("%-7s  ", is.Type))
		b.WriteString(is.Title)
		if len(is.Labels) > 0 {
			b.WriteString("  ")
			b.WriteString(r.st.paint(ansiDim, "["+strings.Join(is.Labels, ", ")+"]"))
		}
		b.WriteByte('\n')
	}
	r.st.printf("%s", b.String())
}

func (r *runner) showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one issue with its description, body and comments",
		ArgsUsage: "ID",
		Description: `ID may be any unique prefix of an issue ID, with or without the "td-" part.

Examples:
   td show td-k3x9qa
   td show k3x --json`,
		Action: func(c *cli.Context) error {
			a, s, err := r.openArgs(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			is, err := s.Issue(a[0])
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
				if e.Action == audit.ActionCommented {
					text, _ := e.Details["text"].(string)
					comments = append(comments, commentJSON{At: jsonTime(e.TS), Session: e.Session, Text: text})
				}
			}
			if r.st.json {
				if comments == nil {
					comments = []commentJSON{}
				}
				items := is.Todos()
				return r.st.emitJSON(showJSON{issueJSON: toIssueJSON(is), Description: is.Description(), Body: is.Body(), Comments: comments,
					Todos: showTodosJSON{Items: todoItemsJSON(items), Summary: markdown.Summarize(items)}})
			}
			r.printIssue(is, comments)
			return nil
		},
	}
}

type commentJSON struct {
	At      string `json:"at"`
	Session string `json:"session"`
	Text    string `json:"text"`
}

type showJSON struct {
	issueJSON
	Description string        `json:"description"`
	Body        string        `json:"body"`
	Comments    []commentJSON `json:"comments"`
	Todos       showTodosJSON `json:"todos"`
}

type showTodosJSON struct {
	Items   []todoItemJSON `json:"items"`
	Summary domain.Summary `json:"summary"`
}

func (r *runner) printIssue(is *repo.Issue, comments []commentJSON) {
	st := r.st
	st.printf("%s  %s\n", st.paint(ansiBold, is.ID), st.paint(ansiBold, is.Title))
	minor := ""
	if is.Minor {
		minor = "  minor"
	}
	st.printf("status: %s  type: %s  priority: %s%s\n", st.statusColor(is.Status), is.Type, is.Priority, minor)
	if is.Resolution != "" {
		st.printf("resolution: %s\n", is.Resolution)
	}
	if len(is.Labels) > 0 {
		st.printf("labels: %s\n", strings.Join(is.Labels, ", "))
	}
	st.printf("created: %s by %s\n", jsonTime(is.CreatedAt), orDash(is.CreatedBy))
	st.printf("updated: %s\n", jsonTime(is.UpdatedAt))
	if is.Implementer != "" {
		st.printf("implementer: %s\n", is.Implementer)
	}
	if is.Assignee != "" {
		st.printf("assignee: %s\n", is.Assignee)
	}
	for _, l := range is.Links {
		st.printf("link: %s %s\n", l.Kind, l.To)
	}
	if items := is.Todos(); len(items) > 0 {
		st.printf("todos: %s\n", summaryLine(markdown.Summarize(items)))
	}
	if body := strings.Trim(strings.ReplaceAll(is.Body(), "\r\n", "\n"), "\n"); body != "" {
		st.printf("\n%s\n", body)
	}
	if len(comments) > 0 {
		st.printf("\n%s\n", st.paint(ansiBold, fmt.Sprintf("Comments (%d)", len(comments))))
		for _, cm := range comments {
			st.printf("\n%s %s\n", st.paint(ansiDim, cm.At), st.paint(ansiDim, cm.Session))
			for _, line := range strings.Split(cm.Text, "\n") {
				if line == "" {
					st.printf("\n")
					continue
				}
				st.printf("  %s\n", line)
			}
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (r *runner) editCommand() *cli.Command {
	return &cli.Command{
		Name:      "edit",
		Usage:     "change an issue's title, type, priority, labels, assignee or description",
		ArgsUsage: "ID",
		Description: `Rewrites only the frontmatter lines of the fields you change (and the
description, when you change it); every other byte of the file, unknown keys
and your own sections included, stays as it was. Status, creator, implementer
and resolution are not edited here: the review workflow owns them.

Examples:
   td edit td-k3x9qa --title "Sign in with GitHub or GitLab" -p P1
   td edit k3x --add-label backend --remove-label ui
   td edit k3x --append "Found while testing on Safari."
   td edit k3x --description-file notes.md
   td edit k3x --minor=false`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "title", Usage: "new title"},
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Usage: "P0 to P4"},
			&cli.BoolFlag{Name: "minor", Usage: "mark minor (--minor=false to clear)"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "replace the labels with these"},
			&cli.StringSliceFlag{Name: "add-label", Usage: "add a label"},
			&cli.StringSliceFlag{Name: "remove-label", Usage: "remove a label"},
			&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "assign (\"\" to clear)"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "replace the description"},
			&cli.StringFlag{Name: "description-file", Usage: "replace the description with `FILE` (- for standard input)"},
			&cli.StringFlag{Name: "append", Usage: "append a paragraph to the description"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID [flags]")
			if err != nil {
				return err
			}
			var o issues.EditOptions
			str := func(name string) *string {
				if !c.IsSet(name) {
					return nil
				}
				v := c.String(name)
				return &v
			}
			o.Title, o.Type, o.Priority, o.Assignee, o.Description = str("title"), str("type"), str("priority"), str("assignee"), str("description")
			if c.IsSet("minor") {
				v := c.Bool("minor")
				o.Minor = &v
			}
			if c.IsSet("label") {
				v := c.StringSlice("label")
				o.Labels = &v
			}
			o.AddLabels, o.RemoveLabels, o.Append = c.StringSlice("add-label"), c.StringSlice("remove-label"), c.String("append")
			if c.String("description-file") != "" {
				d, err := r.textOrFile(c, c.String("description"), "description-file", "--description or --description-file")
				if err != nil {
					return err
				}
				o.Description = &d
			}
			if o.Title == nil && o.Type == nil && o.Priority == nil && o.Minor == nil && o.Labels == nil &&
				len(o.AddLabels) == 0 && len(o.RemoveLabels) == 0 && o.Assignee == nil && o.Description == nil && o.Append == "" {
				return usagef("nothing to change: give at least one of --title, --type, --priority, --minor, --label, --add-label, --remove-label, --assignee, --description, --description-file, --append")
			}
			s, se, err := r.openActor(c)
			if err != nil {
				return err
			}
			is, changes, err := issues.Edit(s, se, a[0], o)
			if err != nil {
				return err
			}
			if r.st.json {
				if changes == nil {
					changes = []issues.Change{}
				}
				return r.st.emitJSON(map[string]any{"issue": toIssueJSON(is), "changes": changes})
			}
			if len(changes) == 0 {
				r.st.printf("%s unchanged: it already says that.\n", is.ID)
				return nil
			}
			r.st.printf("Updated %s:\n", is.ID)
			for _, ch := range changes {
				if ch.Field == "description" {
					r.st.printf("  description changed\n")
					continue
				}
				r.st.printf("  %s: %s -> %s\n", ch.Field, showValue(ch.From), showValue(ch.To))
			}
			return nil
		},
	}
}

func showValue(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return `""`
		}
		return x
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	}
	return fmt.Sprint(v)
}
