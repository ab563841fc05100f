package command

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// linkCommands are td link, unlink, links and ready: typed links between issues.
func (r *runner) linkCommands() []*cli.Command {
	return []*cli.Command{r.linkCommand(), r.unlinkCommand(), r.linksCommand(), r.readyCommand()}
}

// storedLinkJSON is a link as stored: in the frontmatter of from.
type storedLinkJSON struct {
	From string          `json:"from"`
	Kind domain.LinkKind `json:"kind"`
	To   string          `json:"to"`
}

type linkResultJSON struct {
	Action string         `json:"action"`
	Link   storedLinkJSON `json:"link"`
	Issue  issueJSON      `json:"issue"`
}

func (r *runner) linkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Usage:     "link two issues: child_of, duplicate_of, blocked_by or relates_to",
		ArgsUsage: "ID KIND OTHER",
		Description: `Stores the link once, in the frontmatter of ID, and records "linked" in
ID's ledger. OTHER sees the inverse, computed: parent_of, duplicated_by,
blocks, or relates_to, which goes both ways. An inverse kind may be typed
too: "td link A blocks B" stores B blocked_by A, in B.

td refuses a link from an issue to itself, a link that is already there
(relates_to in either direction), a second parent or a second original, and
a child_of, blocked_by or duplicate_of link that would close a cycle. Links
never stop a status change: td ready lists the open issues whose blockers
are all closed.

Examples:
   td link td-k3x9qa child_of td-a0b1c2
   td link k3x blocked_by 9zq
   td link td-a0b1c2 parent_of td-k3x9qa
   td link k3x relates_to m2p --json`,
		Action: func(c *cli.Context) error {
			return r.linkAction(c, "link", links.Link)
		},
	}
}

func (r *runner) unlinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "unlink",
		Usage:     "remove a link between two issues",
		ArgsUsage: "ID KIND OTHER",
		Description: `Removes the link from the issue that stores it (relates_to may be typed
from either end; an inverse kind such as blocks names the link stored on
OTHER) and records "unlinked" in that issue's ledger. A link to an issue
that no longer exists can be removed by its full ID.

Examples:
   td unlink td-k3x9qa blocked_by td-9zq4ab
   td unlink m2p relates_to k3x`,
		Action: func(c *cli.Context) error {
			return r.linkAction(c, "unlink", links.Unlink)
		},
	}
}

func (r *runner) linkAction(c *cli.Context, verb string, run func(*repo.Store, *repo.Session, string, string, string) (*links.LinkResult, error)) error {
	a, s, se, err := r.actorArgs(c, 3, 3, "ID KIND OTHER")
	if err != nil {
		return err
	}
	res, err := run(s, se, a[0], a[1], a[2])
	if err != nil {
		return err
	}
	l := storedLinkJSON{From: res.Issue.ID, Kind: res.Link.Kind, To: res.Link.To}
	if r.st.json {
		return r.st.emitJSON(linkResultJSON{Action: verb + "ed", Link: l, Issue: toIssueJSON(res.Issue)})
	}
	done := "Linked"
	if verb == "unlink" {
		done = "Unlinked"
	}
	r.st.printf("%s %s %s %s.\n", done, l.From, l.Kind, l.To)
	return nil
}

// linkedJSON is one link of td links: the other issue and how this one
// sees it.
type linkedJSON struct {
	Kind   domain.LinkKind `json:"kind"`
	ID     string          `json:"id"`
	Title  string          `json:"title"`
	Status domain.Status   `json:"status"`
	// Stored is true for the issue's own links, false for inverses
	// computed from the other issue's.
	Stored bool `json:"stored"`
	// Missing is true when td has no readable file for the other issue.
	Missing bool `json:"missing"`
}

type linksJSON struct {
	Issue struct {
		ID     string        `json:"id"`
		Title  string        `json:"title"`
		Status domain.Status `json:"status"`
	} `json:"issue"`
	Links []linkedJSON `json:"links"`
}

func (r *runner) linksCommand() *cli.Command {
	return &cli.Command{
		Name:      "links",
		Usage:     "an issue's links: its own and the inverses other issues give it",
		ArgsUsage: "ID",
		Description: `Lists the links stored in the issue (child_of, duplicate_of, blocked_by,
relates_to), then those other issues store about it, as it sees them
(parent_of, duplicated_by, blocks, relates_to), each with the other issue's
status and title.

Examples:
   td links td-k3x9qa
   td links k3x --json`,
		Action: func(c *cli.Context) error {
			a, s, err := r.openArgs(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			is, links, perrs, err := links.Links(s, a[0])
			if err != nil {
				return err
			}
			for _, pe := range perrs {
				r.st.warnf("%v", pe)
			}
			out := linksJSON{Links: []linkedJSON{}}
			out.Issue.ID, out.Issue.Title, out.Issue.Status = is.ID, is.Title, is.Status
			for _, l := range links {
				j := linkedJSON{Kind: l.Kind, ID: l.ID, Stored: l.Stored, Missing: l.Other == nil}
				if l.Other != nil {
					j.Title, j.Status = l.Other.Title, l.Other.Status
				}
				out.Links = append(out.Links, j)
			}
			if r.st.json {
				return r.st.emitJSON(out)
			}
			r.printLinks(out)
			return nil
		},
	}
}

func (r *runner) printLinks(out linksJSON) {
	st := r.st
	st.printf("%s  %s\n", st.paint(ansiBold, out.Issue.ID), out.Issue.Title)
	if len(out.Links) == 0 {
		st.printf("No links.\n")
		return
	}
	kindW := len("duplicated_by")
	statusW := len("in_progress")
	var b strings.Builder
	for _, l := range out.Links {
		status, title := l.Status, l.Title
		if l.Missing {
			status, title = "?", "(no readable issue file)"
		}
		fmt.Fprintf(&b, "  %-*s  %s  %s%s  %s\n", kindW, l.Kind, st.paint(ansiBold, l.ID),
			st.statusColor(status), strings.Repeat(" ", max(statusW-len(status), 0)), title)
	}
	st.printf("%s", b.String())
}

func (r *runner) readyCommand() *cli.Command {
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
			_, s, err := r.openArgs(c, 0, 0, "[flags]")
			if err != nil {
				return err
			}
			list, perrs, err := links.Ready(s, filterOf(c))
			if err != nil {
				return err
			}
			for _, pe := range perrs {
				r.st.warnf("%v", pe)
			}
			if r.st.json {
				return writeIssueListJSON(r.st.out, list)
			}
			if len(list) == 0 {
				r.st.printf("No issue is ready.\n")
				return nil
			}
			r.printIssueTable(list)
			return nil
		},
	}
}

// closeFlags are the flags td close adds for links.
func closeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "duplicate-of", Usage: "close as a duplicate of `OTHER`: adds the duplicate_of link, resolution duplicate"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "close without asking or warning about open children"},
	}
}

// prepareClose is what td close adds to the shared workflow step: the
// repo step to run (a duplicate's when --duplicate-of is given), and the
// open children of the issue. On a terminal it lists them and asks
// before anything is written; otherwise it returns them, for a warning
// after the close. --yes skips the check.
func (r *runner) prepareClose(c *cli.Context, s *repo.Store, se *repo.Session, ref string) (transitionFunc, []*repo.Issue, error) {
	run := transitionFunc(issues.Close)
	if other := c.String("duplicate-of"); other != "" {
		if c.IsSet("resolution") {
			return nil, nil, usagef("--duplicate-of closes with resolution duplicate; drop --resolution")
		}
		run = func(s *repo.Store, se *repo.Session, id string, o issues.TransitionOptions) (*issues.TransitionResult, error) {
			o.Resolution = ""
			return issues.CloseDuplicate(s, se, id, other, o)
		}
	}
	if c.Bool("yes") || se.IsSubagent() {
		return run, nil, nil
	}
	// Ask only about a close that could happen: the step itself reports
	// an unknown or unreadable issue, or one already closed.
	is, err := s.Issue(ref)
	if err != nil || is.Status == domain.StatusClosed {
		return run, nil, nil
	}
	id := is.ID
	children, err := links.OpenChildren(s, id)
	if err != nil || len(children) == 0 {
		return run, nil, err
	}
	if r.st.json || !r.interactive() {
		return run, children, nil
	}
	if r.askClose(id, children) {
		return run, nil, nil
	}
	return nil, nil, &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s not closed: it has open children; close them first, or answer y (--yes skips the question)", id)}
}

// askClose lists the open children and asks whether to close id anyway;
// only y or yes says so.
func (r *runner) askClose(id string, children []*repo.Issue) bool {
	n := len(children)
	r.st.printf("%s has %d open %s:\n", id, n, pluralWord(n, "child", "children"))
	r.printChildren(r.st.out, children)
	r.st.printf("Close %s anyway? %s open. [y/N] ", id, pluralWord(n, "It stays", "They stay"))
	line, _ := bufio.NewReader(r.st.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// childJSON is an open child in td close --json.
type childJSON struct {
	ID     string        `json:"id"`
	Title  string        `json:"title"`
	Status domain.Status `json:"status"`
}

func toChildrenJSON(children []*repo.Issue) []childJSON {
	var out []childJSON
	for _, ch := range children {
		out = append(out, childJSON{ID: ch.ID, Title: ch.Title, Status: ch.Status})
	}
	return out
}

// warnOpenChildren tells, on stderr, which children a close left open.
func (r *runner) warnOpenChildren(id string, children []*repo.Issue) {
	if len(children) == 0 {
		return
	}
	r.st.warnf("%s has %d open %s; %s open (--yes skips this check):", id, len(children),
		pluralWord(len(children), "child", "children"), pluralWord(len(children), "it stays", "they stay"))
	r.printChildren(r.st.errOut, children)
}

func (r *runner) printChildren(w io.Writer, children []*repo.Issue) {
	var b strings.Builder
	for _, ch := range children {
		fmt.Fprintf(&b, "  %s  %s%s  %s\n", ch.ID, ch.Status, strings.Repeat(" ", max(len("in_progress")-len(ch.Status), 0)), ch.Title)
	}
	fmt.Fprint(w, b.String())
}

// interactive reports whether a person is at the terminal: both standard
// output and standard input are terminals, so a question can be asked and
// answered.
func (r *runner) interactive() bool {
	in, ok := r.st.in.(*os.File)
	out, ok2 := r.st.out.(*os.File)
	return ok && ok2 && isInteractiveFile(in) && isInteractiveFile(out)
}

// duplicateOf is " of OTHER" for an issue closed as a duplicate of OTHER,
// for the line td close prints.
func duplicateOf(is *repo.Issue) string {
	if is.Resolution != "duplicate" {
		return ""
	}
	for _, l := range is.Links {
		if l.Kind == domain.DuplicateOf {
			return " of " + l.To
		}
	}
	return ""
}
