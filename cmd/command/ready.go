package command

import (
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// ReadyOptions are td ready's inputs, as parsed from the command line.
type ReadyOptions struct {
	// Filter is the filter flags, values split at commas.
	Filter repo.Filter
}

// readyCommand is td ready. runF, when not nil, replaces runReady.
func (r *runner) readyCommand(runF func(*ReadyOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "ready",
		Usage: "open issues with no open blocker: the work that can start now",
		Description: `Lists the issues whose status is open and whose blocked_by links all point at
closed issues, most urgent and oldest first, as td list prints them. Issues
in progress, blocked or in review are left out: someone has them, or they
wait. A blocker td cannot read counts as open; a blocker that no longer
exists counts as open too, and td says which unlink removes it.

Examples:
   td ready
   td ready -p P0 -p P1 --label auth
   td ready --json`,
		Flags: filterFlags(),
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			o := &ReadyOptions{Filter: filterOf(c)}
			if runF != nil {
				return runF(o)
			}
			return r.runReady(o)
		},
	}
}

// runReady lists the open issues whose blockers are all closed.
func (r *runner) runReady(o *ReadyOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	issueClaims := r.startIssueClaims(s)
	list, perrs, err := links.Ready(s, o.Filter)
	if err != nil {
		return err // the claims, read or not, are not shown
	}
	for _, pe := range perrs {
		r.st.warnf("%v", pe)
	}
	ic := issueClaims()
	ic.prefetch(list)
	return r.st.export(func() any {
		s.FillUpdated(list)
		return issueList{list, ic, nil}
	}, func() error {
		if len(list) == 0 {
			r.st.printf("No issue is ready.\n")
			return nil
		}
		r.printIssueTable(list, ic, nil)
		return nil
	})
}
