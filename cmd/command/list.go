package command

import (
	"io"

	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// ListOptions are td list's inputs, as parsed from the command line.
type ListOptions struct {
	// Session is --session, for --reviewable: whose review it lists.
	Session string
	// Reviewable is --reviewable: list as td reviewable does instead.
	Reviewable bool
	// Filter is --status, --all and the filter flags, values split at commas.
	Filter repo.Filter
}

// listCommand is td list. runF, when not nil, replaces runList.
func (r *runner) listCommand(runF func(*ListOptions) error) *cli.Command {
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
			o := &ListOptions{Session: c.String("session"), Reviewable: c.Bool("reviewable"), Filter: filterOf(c)}
			o.Filter.Statuses, o.Filter.All = splitValues(c.StringSlice("status")), c.Bool("all")
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
	list, perrs, err := s.List(o.Filter)
	if err != nil {
		return err
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	ic := r.loadIssueClaims(s)
	ic.prefetch(list)
	return r.st.export(func() any { return issueList{list, ic} }, func() error {
		r.printIssueTable(list, ic)
		return nil
	})
}

// issueList is a list of issues, with their claims, as td list --json
// writes it.
type issueList struct {
	issues []*repo.Issue
	claims *issueClaims
}

// WriteJSON writes the list as writeIssueListJSON does.
func (l issueList) WriteJSON(w io.Writer) error {
	return writeIssueListJSON(w, l.issues, l.claims.json)
}
