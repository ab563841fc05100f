package command

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// ReadyOptions are td ready's inputs, as parsed from the command line.
type ReadyOptions struct {
	// Session is --session: whose work to list ("" for the default);
	// issues other actors hold a claim on are not theirs to start.
	Session string
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

Two kinds of open issue are not work to start, and are left out with one
line after the list that counts them: epics (their children are the work;
--type epic lists them), and issues another actor holds a live claim on
(td help claims). --json prints the list as td list --json does, and the
line that counts what was left out goes to stderr.

Examples:
   td ready
   td ready -p P0 -p P1 --label auth
   td ready --json`,
		Flags: filterFlags(),
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			o := &ReadyOptions{Session: c.String("session"), Filter: filterOf(c)}
			if runF != nil {
				return runF(o)
			}
			return r.runReady(o)
		},
	}
}

// runReady lists the open issues whose blockers are all closed, but for
// epics and the issues another actor holds a live claim on.
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
	epics := slices.Contains(o.Filter.Types, string(domain.TypeEpic))
	// Whose claims are someone else's: read only when an issue has a live
	// claim, since reading the session needs a git identity.
	var me *domain.Actor
	mine := func(c *domain.Claim) bool {
		if me == nil {
			me = &domain.Actor{}
			if _, se, err := r.readSession(o.Session); err == nil {
				*me = se.Actor()
			}
		}
		return c.Actor.Same(*me)
	}
	var claimedBy []string
	nEpics, nClaimed := 0, 0
	list = slices.DeleteFunc(list, func(is *repo.Issue) bool {
		if is.Type == domain.TypeEpic && !epics {
			nEpics++
			return true
		}
		if ic.set == nil || ic.set.Len() == 0 {
			return false
		}
		c := ic.set.Get(is.ID)
		if c == nil || c.Expired(ic.now) || mine(c) {
			return false
		}
		nClaimed++
		if !slices.Contains(claimedBy, c.Actor.Name()) {
			claimedBy = append(claimedBy, board.HolderName(c.Actor))
		}
		return true
	})
	// What was left out is said after the list, or on stderr beside JSON,
	// so that td ready --json stays the list td list --json prints.
	leftOut := func(w io.Writer) {
		if nEpics+nClaimed == 0 {
			return
		}
		var why []string
		if nEpics > 0 {
			why = append(why, domain.Plural(nEpics, "1 epic", fmt.Sprintf("%d epics", nEpics)))
		}
		if nClaimed > 0 {
			why = append(why, fmt.Sprintf("%d claimed by %s", nClaimed, safe(strings.Join(claimedBy, ", "))))
		}
		fmt.Fprintf(w, "%d left out: %s.\n", nEpics+nClaimed, strings.Join(why, ", "))
	}
	if r.st.json {
		leftOut(r.st.errOut)
	}
	return r.st.export(func() any {
		s.FillUpdated(list)
		return issueList{list, ic, nil}
	}, func() error {
		if len(list) == 0 {
			r.st.printf("No issue is ready.\n")
		} else {
			r.printIssueTable(list, ic, nil)
		}
		leftOut(r.st.out)
		return nil
	})
}
