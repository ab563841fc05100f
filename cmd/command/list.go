package command

import (
	"io"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// ListOptions are td list's inputs, as parsed from the command line.
type ListOptions struct {
	// Session is --session, for --reviewable: whose review it lists.
	Session string
	// Reviewable is --reviewable: list as td reviewable does instead.
	Reviewable bool
	// Filter is --status, --all, --text and the filter flags, values
	// split at commas.
	Filter repo.Filter
	// Sort is --sort: priority (the default), created, updated or title.
	Sort string
	// Limit is --limit: the most issues listed, 0 for all; -1 when not
	// given (a page on a terminal, all otherwise).
	Limit int
}

// listPage is how many issues td list shows a person at a terminal
// unless --limit says otherwise.
const listPage = 50

// listCommand is td list. runF, when not nil, replaces runList.
func (r *runner) listCommand(runF func(*ListOptions) error) *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list issues (open ones by default), most urgent and oldest first",
		Description: `Lists issues sorted by priority, then age (--sort created, updated or title
for another order). Closed issues are left out unless --all or --status asks
for them; --text keeps the issues whose title holds every word given (td
search looks through descriptions, todos and comments too). On a terminal
td list shows the first 50 and says how many more there are; piped, or with
--json, it lists every one, unless --limit N (0: all) says otherwise. A file
td cannot read is reported on stderr as path:line: reason and the rest are
listed.

Examples:
   td list
   td list --status in_progress --label auth
   td list --text oauth --sort updated
   td list --all --json --limit 0
   td list --reviewable`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "status", Aliases: []string{"s"}, Usage: "only these statuses (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "include closed issues"},
			&cli.BoolFlag{Name: "reviewable", Usage: "only issues in review that you may approve (same as td reviewable)"},
			&cli.StringFlag{Name: "text", Usage: "only issues whose title holds every one of these words"},
			&cli.StringFlag{Name: "sort", Value: repo.SortPriority, Usage: "order: `KEY` priority, created, updated or title"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: -1, Usage: "list at most `N` issues (0: all; default: 50 on a terminal, all otherwise)"},
		}, filterFlags()...),
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			o := &ListOptions{Session: c.String("session"), Reviewable: c.Bool("reviewable"), Filter: filterOf(c), Sort: c.String("sort"), Limit: c.Int("limit")}
			o.Filter.Statuses, o.Filter.All, o.Filter.Text = splitValues(c.StringSlice("status")), c.Bool("all"), c.String("text")
			if c.IsSet("limit") && o.Limit < 0 {
				return usagef("--limit must be 0 (all) or more, not %d", o.Limit)
			}
			if runF != nil {
				return runF(o)
			}
			return r.runList(o)
		},
	}
}

// runList lists the issues the filter selects, reporting the files it
// could not read on stderr.
func (r *runner) runList(o *ListOptions) error {
	if o.Reviewable {
		return r.runReviewable(&ReviewableOptions{Session: o.Session})
	}
	s, err := r.openStore()
	if err != nil {
		return err
	}
	issueClaims := r.startIssueClaims(s)
	list, all, perrs, err := s.ListAllUnordered(o.Filter)
	if err != nil {
		return err // the claims, read or not, are not shown
	}
	kids := links.ChildCounts(all)
	total := len(list)
	limit := o.Limit
	if limit < 0 && r.st.tty && !r.st.wantsJSON() {
		limit = listPage
	}
	// Only JSON shows updated_at, so only it (and that order) pays for
	// the ledgers; while the list is still in ID order, filling it walks
	// the ledger cache instead of searching it for each issue.
	filled := o.Sort == repo.SortUpdated || (r.st.wantsJSON() && (limit <= 0 || limit >= len(list)))
	if filled {
		s.FillUpdated(list)
	}
	if list, err = repo.SortBy(list, o.Sort, limit); err != nil {
		return err
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	ic := issueClaims()
	ic.prefetch(list)
	return r.st.export(func() any {
		if !filled {
			s.FillUpdated(list)
		}
		return issueList{list, ic, kids}
	}, func() error {
		r.printIssueTable(list, ic, kids)
		if n := total - len(list); n > 0 {
			r.st.printf("%d more; td list --limit 0 lists all %d, or narrow it with --text, --label or --status.\n", n, total)
		}
		return nil
	})
}

// issueList is a list of issues, with their claims and how many children
// each has, as td list --json writes it.
type issueList struct {
	issues []*repo.Issue
	claims *issueClaims
	// children counts the children of the issues that have any; nil
	// for none.
	children map[string]links.ChildCount
}

// WriteJSON writes the list as writeIssueListJSON does.
func (l issueList) WriteJSON(w io.Writer) error {
	return writeIssueListJSON(w, l.issues, l.claims.json, l.children)
}
