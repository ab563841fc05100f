package web

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/tdproject/td/repo/site"
	"github.com/tdproject/td/repo/stats"
)

// statsPage is what the stats template is given.
type statsPage struct {
	*stats.Stats
	// Chart is the flow as an SVG bar chart, opened beside closed per
	// week: markup, no script, drawn with the style sheet's classes.
	Chart template.HTML
}

// Stats renders the stats page, at the site's root.
func (r *Renderer) Stats(w io.Writer, st *stats.Stats, repo string, diffs []site.DiffLink) error {
	return r.stats.ExecuteTemplate(w, "layout", r.layout("stats", "", repo, diffs, st.Now, statsPage{Stats: st, Chart: flowChart(st.Weeks)}))
}

// flowChart draws the weeks as pairs of bars, opened then closed, with
// the counts on the bars and the week's Monday below; the page's table
// says the same in text.
func flowChart(weeks []stats.Week) template.HTML {
	const (
		barW, gap, groupGap = 18, 4, 22
		plotH, top, bottom  = 160, 20, 36
		left                = 8
	)
	most := 1
	for _, w := range weeks {
		most = max(most, w.Opened, w.Closed)
	}
	groupW := 2*barW + gap
	width := left*2 + len(weeks)*groupW + max(len(weeks)-1, 0)*groupGap
	height := top + plotH + bottom
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-labelledby="chart-title">`, width, height, width, height)
	b.WriteString(`<title id="chart-title">Issues opened and closed per week</title>`)
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, left, top+plotH, width-left, top+plotH)
	bar := func(x, n int, class string) {
		h := n * plotH / most
		if n > 0 && h < 2 {
			h = 2
		}
		y := top + plotH - h
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"/>`, class, x, y, barW, h)
		fmt.Fprintf(&b, `<text class="count" x="%d" y="%d" text-anchor="middle">%d</text>`, x+barW/2, y-4, n)
	}
	for i, w := range weeks {
		x := left + i*(groupW+groupGap)
		bar(x, w.Opened, "opened")
		bar(x+barW+gap, w.Closed, "closed")
		fmt.Fprintf(&b, `<text class="week" x="%d" y="%d" text-anchor="middle">%s</text>`, x+groupW/2, top+plotH+16, w.Start.Format("01-02"))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
