package command

import (
	"path/filepath"

	"github.com/tdproject/td/cmd/command/web"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// boardSiteJSON is what td board --html --json says it wrote.
type boardSiteJSON struct {
	Dir       string   `json:"dir"`
	Index     string   `json:"index"`
	Issues    int      `json:"issues"`
	Diffs     []string `json:"diffs"`
	Files     int      `json:"files"`
	Unchanged int      `json:"unchanged"`
	Removed   int      `json:"removed"`
}

// runBoardHTML writes the static site td board --html asks for.
func (r *runner) runBoardHTML(s *repo.Store, o *BoardOptions) error {
	ranges, err := siteRanges(s, o.Ranges)
	if err != nil {
		return err
	}
	dir := r.path(o.HTML)
	res, err := web.WriteSite(s, dir, web.SiteOptions{Version: Version, Ranges: ranges, Filter: o.Filter, Shown: o.HTML})
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		r.st.warnf("%v", p)
	}
	out := boardSiteJSON{Dir: o.HTML, Index: filepath.ToSlash(filepath.Join(o.HTML, "index.html")), Issues: res.Issues, Diffs: []string{}, Files: res.Files, Unchanged: res.Unchanged, Removed: res.Removed}
	for _, d := range res.Diffs {
		out.Diffs = append(out.Diffs, filepath.ToSlash(filepath.Join(o.HTML, d.Path)))
	}
	return r.st.export(func() any { return out }, func() error {
		r.st.printf("Wrote the board, %d issue %s", res.Issues, domain.Plural(res.Issues, "page", "pages"))
		if n := len(res.Diffs); n > 0 {
			r.st.printf(" and %d %s of changes", n, domain.Plural(n, "page", "pages"))
		}
		r.st.printf(" to %s", o.HTML)
		if res.Removed > 0 {
			r.st.printf(" (removed %d %s of issues gone since)", res.Removed, domain.Plural(res.Removed, "page", "pages"))
		}
		r.st.printf(".\nOpen %s\n", out.Index)
		return nil
	})
}
