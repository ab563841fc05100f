// Package web renders td's people's view to HTML: the board, one page per
// issue and a page per revision range, written as a static site by td
// board --html DIR (WriteSite) and served live by td serve (Server). The
// pages' contents come from repo/site; this package holds only their
// markup, the words on them, the style sheet, and the two ways out.
//
// It is a room of its own, not a file of cmd/command, because it links
// html/template, net/http and the HTML renderer of goldmark, which nothing
// else in td needs: the only callers are td board's --html and td serve,
// so the rest of td never calls into it. The pages use no script, load
// nothing from another host (their Content-Security-Policy says so) and
// link each other by relative paths, so a site works from file:// and from
// any static host.
package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/review"
	"github.com/tdproject/td/repo/site"
	"github.com/tdproject/td/repo/stats"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

//go:embed templates
var files embed.FS

// Style is the style sheet every page links to, at site.StylePath.
func Style() []byte {
	b, _ := files.ReadFile("templates/style.css")
	return b
}

// page is what the layout template is given: the page's data and where
// the site's root is from the page ("" or "../").
type page struct {
	Page      string // "board", "issue", "diff", "error"
	Root      string
	Repo      string
	Version   string
	Diffs     []site.DiffLink
	Generated time.Time
	// CSPSelf is what the pages' own files are in the
	// Content-Security-Policy: 'self' over HTTP, file: for a site opened
	// from disk ('self' matches no file there).
	CSPSelf template.HTMLAttr
	// Stats is whether the site has a stats page to link to (a written
	// site does).
	Stats bool
	Data  any
}

// Renderer renders pages. It is safe for concurrent use.
type Renderer struct {
	// Version is td's version, in every page's footer.
	Version string
	// File says whether the pages are for a site opened from disk.
	File bool
	// HasStats says whether the site has the stats page, which every
	// page's navigation then links to.
	HasStats                           bool
	board, issue, diff, failure, stats *template.Template
	md                                 goldmark.Markdown
}

// NewRenderer parses the templates.
func NewRenderer(version string, file bool) *Renderer {
	r := &Renderer{Version: version, File: file}
	r.md = goldmark.New(
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(localImages{}, 100))),
	)
	funcs := template.FuncMap{
		"issuePath": site.IssuePath,
		"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"when":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"plural":    plural,
		"markdown":  r.markdown,
		"marker":    markdown.Marker,
		"todoWords": domain.TodoStatus.Words,
		"steps":     func(s domain.Summary) int { return s.Done + s.Open + s.Blocked },
		// done and total count a checklist as the board's card and td
		// board do: steps and criteria, dropped steps left out.
		"done":        func(s domain.Summary) int { return s.Done + s.CriteriaDone },
		"total":       func(s domain.Summary) int { return s.Done + s.Open + s.Blocked + s.CriteriaTotal },
		"linkWords":   linkWords,
		"ledgerWords": ledgerWords,
		"short":       short,
		"clip":        clip,
		"rangeWords":  rangeWords,
		"eventWords":  func(e review.IssueEvent) string { return e.String() },
		"eventClass":  eventClass,
		"span":        stats.Span,
		"day":         func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	}
	parse := func(name string) *template.Template {
		return template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html"))
	}
	r.board, r.issue, r.diff, r.failure, r.stats = parse("board"), parse("issue"), parse("diff"), parse("error"), parse("stats")
	return r
}

func (r *Renderer) layout(kind, root, repo string, diffs []site.DiffLink, generated time.Time, data any) page {
	self := template.HTMLAttr("'self'")
	if r.File {
		self = "file:"
	}
	return page{Page: kind, Root: root, Repo: repo, Version: r.Version, Diffs: diffs, Generated: generated, CSPSelf: self, Stats: r.HasStats, Data: data}
}

// Board renders the board page, at the site's root.
func (r *Renderer) Board(w io.Writer, b *site.Board) error {
	return r.board.ExecuteTemplate(w, "layout", r.layout("board", "", b.Repo, b.Diffs, b.Generated, b))
}

// Issue renders an issue's page, one directory below the root.
func (r *Renderer) Issue(w io.Writer, is *site.Issue, diffs []site.DiffLink) error {
	return r.issue.ExecuteTemplate(w, "layout", r.layout("issue", "../", is.Repo, diffs, time.Time{}, is))
}

// Diff renders a revision range's page, one directory below the root.
func (r *Renderer) Diff(w io.Writer, d *site.Diff, diffs []site.DiffLink) error {
	return r.diff.ExecuteTemplate(w, "layout", r.layout("diff", "../", d.Repo, diffs, time.Time{}, d))
}

// Failure renders a page that says what went wrong; root is where the
// site's root is from it.
func (r *Renderer) Failure(w io.Writer, root, repo, title, msg string) error {
	return r.failure.ExecuteTemplate(w, "layout", r.layout("error", root, repo, nil, time.Time{},
		struct{ Title, Message string }{title, msg}))
}

// markdown renders a description as CommonMark. (goldmark's extensions
// stay out: their package's start-up work would run in every td command.)
// goldmark escapes raw HTML and drops
// dangerous link targets unless told otherwise, which td never does.
func (r *Renderer) markdown(src string) template.HTML {
	var b bytes.Buffer
	if err := r.md.Convert([]byte(src), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(b.String())
}

// localImages turns an image from another host into a link to it: a page
// of td's requests nothing from elsewhere when it is opened.
type localImages struct{}

func (localImages) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering && remote(string(img.Destination)) {
			images = append(images, img)
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		link := ast.NewLink()
		link.Destination, link.Title = img.Destination, img.Title
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			link.AppendChild(link, c)
			c = next
		}
		if link.ChildCount() == 0 {
			link.AppendChild(link, ast.NewString(img.Destination))
		}
		img.Parent().ReplaceChild(img.Parent(), img, link)
	}
}

// remote reports whether a URL names another host (or any scheme but a
// relative path's).
func remote(u string) bool {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "//") {
		return true
	}
	if i := strings.IndexAny(u, ":/?#"); i > 0 && u[i] == ':' {
		return !strings.HasPrefix(strings.ToLower(u), "data:")
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// linkWords reads a link from the issue's side: "child of", "blocks".
func linkWords(k domain.LinkKind) string {
	switch k {
	case domain.ChildOf:
		return "child of"
	case domain.ParentOf:
		return "parent of"
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// clip cuts s to n characters, "…" last when it was longer: a page's
// <title> names the issue in a tab's width, the page holds all of it.
func clip(n int, s string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// ledgerWords is one ledger entry in a sentence: what was done, by whom,
// with what the entry says it changed.
func ledgerWords(e *audit.Entry, who string) string {
	if who == "" {
		who = e.Session
	}
	if who == "" {
		who = "-"
	}
	s := strings.ReplaceAll(e.Action, "_", " ") + " by " + who
	if via := repo.AttributionOf(e.Details); !via.IsZero() {
		s += " via " + via.Words()
	}
	switch text, fields, link := e.Change(); {
	case text != "":
		s += ": “" + text + "”"
	case len(fields) > 0:
		s += ": " + strings.Join(fields, ", ")
	case link != "":
		s += ": " + link
	}
	if e.Reason != "" {
		s += " (reason: “" + e.Reason + "”)"
	}
	return s
}

// rangeWords says what a diff page compares.
func rangeWords(rg *review.DiffRange) string {
	if rg.MergeBase {
		return fmt.Sprintf("from %s (merge base %s) to the work tree", rg.BaseRev, short(rg.Base))
	}
	head := "the work tree"
	if rg.Head != "" {
		head = fmt.Sprintf("%s (%s)", rg.HeadRev, short(rg.Head))
	}
	return fmt.Sprintf("from %s (%s) to %s", rg.BaseRev, short(rg.Base), head)
}

// eventClass colours a change as a pull request would: what was added or
// met in green, what went in red.
func eventClass(e review.IssueEvent) string {
	switch e.Suffix() {
	case review.ItemAdded, review.ItemCompleted, review.EventOpened, review.EventLabelAdded, review.EventLinkAdded, review.EventClosed:
		return "ev-add"
	case review.ItemDropped, review.ItemDeleted, review.ItemBlocked, review.EventLabelGone, review.EventLinkGone:
		return "ev-del"
	}
	return "ev-change"
}
