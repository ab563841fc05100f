package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// Context block formats.
const (
	formatText     = "text"
	formatMarkdown = "markdown"
)

// formatFlag is the --format flag of the commands that print a session's
// context, made afresh for each command (see globalFlags).
func formatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: formatText, Usage: "text or markdown (--json for JSON)"}
}

type contextJSON struct {
	Kind        string              `json:"kind"`
	Language    string              `json:"language"`
	Session     sessionRefJSON      `json:"session"`
	Scope       []string            `json:"scope"`
	Issue       *todoIssueJSON      `json:"issue"`
	Items       []todoItemJSON      `json:"items"`
	Summary     *domain.Summary     `json:"summary"`
	Anchors     []repo.Anchor       `json:"anchors"`
	AnchorsLeft int                 `json:"anchors_left"`
	Actions     []repo.ActionRecord `json:"actions"`
	Warnings    []string            `json:"warnings"`
	Stalls      []policy.Stall      `json:"stalls"`
	Next        []string            `json:"next"`
	Resume      *resumeJSON         `json:"resume"`
	Rejection   *rejectionJSON      `json:"rejection"`
	Handoff     *handoffJSON        `json:"handoff"`
}

// rejectionJSON is the review that sent an issue back, while it stands.
type rejectionJSON struct {
	Issue   string `json:"issue"`
	Session string `json:"session"`
	At      string `json:"at"`
	Reason  string `json:"reason"`
}

// handoffJSON is a handoff as --json shows it.
type handoffJSON struct {
	Issue   string           `json:"issue"`
	Session string           `json:"session"`
	At      string           `json:"at"`
	When    string           `json:"when"`
	Done    []string         `json:"done"`
	More    int              `json:"done_more"`
	Next    []string         `json:"next"`
	Open    []string         `json:"open"`
	Via     repo.Attribution `json:"via"`
}

func toRejectionJSON(r *sessions.Rejection) *rejectionJSON {
	if r == nil {
		return nil
	}
	return &rejectionJSON{Issue: r.Issue, Session: r.Session, At: jsonTime(r.TS), Reason: r.Reason}
}

func toHandoffJSON(h *sessions.Handoff) *handoffJSON {
	if h == nil {
		return nil
	}
	return &handoffJSON{Issue: h.Issue, Session: h.Session, At: jsonTime(h.TS), When: h.At, Done: nonNilSlice(h.Done), More: h.More,
		Next: nonNilSlice(h.Next), Open: nonNilSlice(h.Open), Via: h.Via}
}

type sessionRefJSON struct {
	ID          string           `json:"id"`
	Role        domain.Role      `json:"role"`
	Agent       domain.AgentPath `json:"agent"`
	Category    domain.Category  `json:"category"`
	State       string           `json:"state"`
	Compactions int              `json:"compactions"`
}

type resumeJSON struct {
	IdleSeconds int64  `json:"idle_seconds"`
	Previous    string `json:"previous"`
	Block       bool   `json:"block"`
	Fresh       bool   `json:"fresh"`
}

func toContextJSON(ctx *sessions.Context) contextJSON {
	out := contextJSON{
		Kind: ctx.Kind, Language: ctx.Language, Scope: ctx.Scope,
		Session: sessionRefJSON{ID: ctx.Session.ID, Role: ctx.Role, Agent: ctx.Session.Agent,
			Category: ctx.Session.Category, State: ctx.State, Compactions: ctx.Compactions},
		Items: []todoItemJSON{}, Anchors: nonNilSlice(ctx.Anchors), AnchorsLeft: ctx.AnchorsLeft,
		Actions: nonNilSlice(ctx.Actions), Warnings: nonNilSlice(ctx.Warnings),
		Stalls: nonNilSlice(ctx.Stalls), Next: nonNilSlice(stepTexts(ctx.Next)),
	}
	if ctx.Issue != nil {
		out.Issue = &todoIssueJSON{ID: ctx.Issue.ID, Title: ctx.Issue.Title, Status: ctx.Issue.Status}
		out.Items = todoItemsJSON(ctx.Items)
		sum := markdown.Summarize(ctx.Items)
		out.Summary = &sum
	}
	out.Rejection, out.Handoff = toRejectionJSON(ctx.Rejection), toHandoffJSON(ctx.Handoff)
	if ctx.Resume != nil {
		out.Resume = &resumeJSON{IdleSeconds: int64(ctx.Resume.Idle / time.Second), Previous: jsonTime(ctx.Resume.Previous),
			Block: ctx.Resume.Block, Fresh: ctx.Resume.Fresh}
	}
	return out
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// checkFormat refuses a --format td does not print. Commands that change
// a session's state call it before acting, so a refused call writes
// nothing.
func checkFormat(format string) error {
	if format != formatText && format != formatMarkdown {
		return usagef("--format %q must be text or markdown", format)
	}
	return nil
}

// printContext prints a context block as JSON, text or markdown.
func (r *runner) printContext(ctx *sessions.Context, format string) error {
	return r.st.export(func() any { return toContextJSON(ctx) }, func() error { return r.contextText(ctx, format) })
}

// contextText prints a context block as text or markdown.
func (r *runner) contextText(ctx *sessions.Context, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	w := &blockWriter{md: format == formatMarkdown}
	writeContext(w, ctx)
	r.st.printf("%s", safe(w.String()))
	return nil
}

// blockWriter writes a context block's sections as plain text or markdown.
type blockWriter struct {
	strings.Builder
	md       bool
	sections int
}

func (w *blockWriter) section(title string) {
	if w.Len() > 0 {
		w.WriteString("\n")
	}
	w.sections++
	if w.md {
		fmt.Fprintf(w, "### %s\n\n", title)
	} else {
		fmt.Fprintf(w, "%s:\n", title)
	}
}

func (w *blockWriter) line(format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
}

func (w *blockWriter) bullet(format string, args ...any) {
	if w.md {
		w.WriteString("- ")
	} else {
		w.WriteString("  - ")
	}
	fmt.Fprintf(w, format+"\n", args...)
}

func (w *blockWriter) numbered(items []string) {
	for i, s := range items {
		if w.md {
			fmt.Fprintf(w, "%d. %s\n", i+1, s)
		} else {
			fmt.Fprintf(w, "  %d. %s\n", i+1, s)
		}
	}
}

// writeContext lays out one block: the language first, then who the
// session is, the resume block if any, the work, anchors, warnings and
// what to do next.
func writeContext(w *blockWriter, ctx *sessions.Context) {
	if w.md {
		w.line("## td: %s", contextTitle(ctx))
		w.line("")
	}
	if ctx.Language != "" {
		w.line("Language: %s.", ctx.Language)
	}
	who := fmt.Sprintf("Session %s: %s", ctx.Session.ID, ctx.Role)
	if ctx.Session.ID == "" {
		who = fmt.Sprintf("No session yet (td starts one at your first change): %s", ctx.Role)
	}
	if ctx.Session.Agent != "" {
		who += " " + string(ctx.Session.Agent)
	}
	who += ", " + string(ctx.Session.Category) + " scope, " + ctx.State
	if ctx.Kind == sessions.ContextCompact {
		who += fmt.Sprintf(" (compaction %d)", ctx.Compactions)
	}
	w.line("%s.", who)
	for _, s := range ctx.Scope {
		w.line("%s", s)
	}
	writeRejection(w, ctx.Rejection)
	writeHandoff(w, ctx.Handoff, ctx.Session.ID)
	anchorsShown := false
	if rs := ctx.Resume; rs != nil && (rs.Block || rs.Fresh) {
		w.section("Resume")
		if rs.Fresh {
			w.line("Away for %s (since %s): starting fresh. The binding is kept; earlier actions and counters are cleared.", idleWords(rs.Idle), jsonTime(rs.Previous))
		} else {
			w.line("Away for %s (last active %s, %s). Re-read the issue and the anchors before going on.", idleWords(rs.Idle), jsonTime(rs.Previous), orDash(rs.PreviousState))
			writeAnchors(w, ctx)
			anchorsShown = true
		}
	}
	writeWork(w, ctx)
	if len(ctx.Actions) > 0 {
		w.section("Last actions")
		for _, a := range ctx.Actions {
			s := jsonTime(a.At) + " td " + a.Command
			if a.Failed {
				s += " (failed)"
			}
			w.bullet("%s", s)
		}
	}
	if !anchorsShown && len(ctx.Anchors) > 0 {
		title := "Anchors"
		if ctx.Kind == sessions.ContextCompact {
			title = "Critical anchors"
		}
		w.section(title)
		writeAnchors(w, ctx)
	}
	if len(ctx.Warnings)+len(ctx.Stalls) > 0 {
		w.section("Warnings")
		for _, s := range ctx.Warnings {
			w.bullet("%s", s)
		}
		for _, s := range ctx.Stalls {
			w.bullet("stalled: %s", s.Message)
		}
	}
	if len(ctx.Next) > 0 {
		w.section("Next")
		w.numbered(stepTexts(ctx.Next))
	}
}

func contextTitle(ctx *sessions.Context) string {
	switch ctx.Kind {
	case sessions.ContextCompact:
		return "reminder after compaction"
	case sessions.ContextResume:
		return "resumed session"
	case sessions.ContextStart:
		return "session start"
	}
	return "context"
}

func writeAnchors(w *blockWriter, ctx *sessions.Context) {
	for _, a := range ctx.Anchors {
		where := "project"
		if a.Issue != "" {
			where = a.Issue
		}
		w.bullet("%s: %s (%s)", a.Priority, a.Text, where)
	}
	if ctx.AnchorsLeft > 0 {
		w.bullet("%d more: td anchor list", ctx.AnchorsLeft)
	}
}

// writeWork prints the bound issue: the whole checklist at start and in
// context, the active todo and the summary in the reminder.
func writeWork(w *blockWriter, ctx *sessions.Context) {
	is := ctx.Issue
	if is == nil {
		w.section("Issue")
		w.line("No issue is bound to this session.")
		return
	}
	w.section("Issue")
	w.line("%s %s (%s)", is.ID, is.Title, is.Status)
	sum := markdown.Summarize(ctx.Items)
	if ctx.Kind == sessions.ContextCompact {
		if ctx.Active != nil {
			phase := ""
			if ctx.Active.Phase != "" {
				phase = " (" + ctx.Active.Phase + ")"
			}
			w.line("Active todo: %q%s", ctx.Active.Text, phase)
		}
		if len(ctx.Items) > 0 {
			w.line("%s", summaryLine(sum))
		}
		return
	}
	if len(ctx.Items) == 0 {
		w.line("No todos yet.")
		return
	}
	w.line("")
	list := ctx.Rendered
	if w.md {
		// The checklist's own headings sit under this block's sections.
		list = demoteHeadings(list)
	}
	w.WriteString(list)
	if !strings.HasSuffix(list, "\n") {
		w.line("")
	}
	w.line("")
	w.line("%s", summaryLine(sum))
}

// demoteHeadings pushes a rendered checklist's "##" and "###" headings two
// levels down, under the "###" sections of a markdown block.
func demoteHeadings(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = "##" + l
		}
	}
	return strings.Join(lines, "")
}

// idleWords says how long a session was away: minutes, hours, or days and
// hours.
func idleWords(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		h := int(d / time.Hour)
		if m := int(d%time.Hour) / int(time.Minute); m > 0 {
			return fmt.Sprintf("%d h %d min", h, m)
		}
		return fmt.Sprintf("%d h", h)
	}
	days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
	if h > 0 {
		return fmt.Sprintf("%d d %d h", days, h)
	}
	return fmt.Sprintf("%d d", days)
}

// whoWords names a session for a reader: "Lead Operator (ses_x)", or the
// id alone when its identity cannot be read.
func whoWords(who, id string) string {
	if who == "" {
		return orDash(id)
	}
	return who + " (" + id + ")"
}

// rejectionLine is a standing rejection in one sentence: who sent the
// issue back, when, and why.
func rejectionLine(r *sessions.Rejection) string {
	s := fmt.Sprintf("%s was rejected by %s at %s", r.Issue, whoWords(r.Who, r.Session), jsonTime(r.TS))
	if r.Reason != "" {
		s += fmt.Sprintf(": %q", r.Reason)
	}
	return s
}

// writeRejection heads a block with the review that sent the bound issue
// back: the agent's work starts from the reviewer's reason.
func writeRejection(w *blockWriter, r *sessions.Rejection) {
	if r == nil {
		return
	}
	w.section("Rejected")
	w.line("%s. Fix what the review names, then ask again with td review %s.", rejectionLine(r), r.Issue)
}

// handoffHeader says whose handoff it is, from where and when.
func handoffHeader(h *sessions.Handoff, self string) string {
	who := whoWords(h.Who, h.Session)
	if h.Session == self {
		who = "this session"
	}
	if via := h.Via.Words(); via != "" {
		who += " in " + via
	}
	when := "when its conversation ended"
	if h.At == sessions.HandoffCompaction {
		when = "at a compaction"
	}
	return fmt.Sprintf("From %s, %s, %s:", who, when, jsonTime(h.TS))
}

// writeHandoff prints the bound issue's latest handoff, which the work
// goes on from.
func writeHandoff(w *blockWriter, h *sessions.Handoff, self string) {
	if h == nil {
		return
	}
	w.section("Handoff")
	w.line("%s", handoffHeader(h, self))
	for _, l := range handoffLines(h) {
		w.bullet("%s", l)
	}
}

// handoffLines are a handoff's lines: done, next, then each open point.
func handoffLines(h *sessions.Handoff) []string {
	var out []string
	quoted := func(v []string) string {
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = fmt.Sprintf("%q", s)
		}
		return strings.Join(q, ", ")
	}
	switch {
	case len(h.Done) > 0 && h.More > 0:
		out = append(out, fmt.Sprintf("done: %s and %d before them", quoted(h.Done), h.More))
	case len(h.Done) > 0:
		out = append(out, "done: "+quoted(h.Done))
	default:
		out = append(out, "done: nothing on the checklist yet")
	}
	if len(h.Next) > 0 {
		out = append(out, "next: "+quoted(h.Next))
	}
	for _, o := range h.Open {
		out = append(out, "open: "+o)
	}
	return out
}
