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

// CloseOptions are td close's inputs, as parsed from the command line.
type CloseOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue is the issue to close, as typed (an ID or a prefix).
	Issue string
	// Reason is --reason ("" when not given).
	Reason string
	// Resolution is --resolution: done (the default) or wontfix.
	Resolution string
	// SelfCloseException is --self-close-exception: the reason to close
	// one's own work anyway.
	SelfCloseException string
	// DuplicateOf is --duplicate-of: close as a duplicate of this issue.
	DuplicateOf string
	// Yes is --yes: neither ask nor warn about open children.
	Yes bool
	// OverrideOpenCriteria is --override-open-criteria: an operator's
	// audited reason to close as done while criteria are open.
	OverrideOpenCriteria string
}

// overrideCriteriaFlag is --override-open-criteria of td approve and td
// close.
func overrideCriteriaFlag() cli.Flag {
	return &cli.StringFlag{Name: "override-open-criteria", Usage: "operator only: close as done although acceptance criteria are open, for this `REASON` (audited)"}
}

// closeCommand is td close. runF, when not nil, replaces runClose.
func (r *runner) closeCommand(runF func(*CloseOptions) error) *cli.Command {
	return &cli.Command{
		Name: "close", Usage: "close an issue outside review (admin close), under the review policy", ArgsUsage: "ID",
		Description: `An issue nobody started may be closed by anyone. Otherwise the approval rules
apply; a session they refuse may close with --self-close-exception REASON,
which is audited like the creator exception; it never covers open
acceptance criteria. Closing as done an issue with acceptance criteria is
the operator's sign-off, for an operator only. Nobody closes an issue as
done while criteria are open: finish them, or, as an operator, drop what
no longer applies or pass --override-open-criteria REASON (audited).
--resolution wontfix is not held to the criteria.

--duplicate-of OTHER adds the duplicate_of link and closes with resolution
duplicate, in one step. An issue with children (issues child_of it) that
are not closed is not closed unasked: on a terminal td lists them and asks
first; elsewhere it refuses, naming them, before it writes anything.
--yes closes it anyway, and the children stay open.

Examples:
   td close td-k3x9qa --resolution wontfix --reason "superseded by the new login"
   td close td-k3x9qa --duplicate-of td-m2p7qd
   td close td-a0b1c2 --yes
   td close td-k3x9qa --self-close-exception "one-line typo fix, nobody else around"`,
		Flags: []cli.Flag{reasonFlag("why"), &cli.StringFlag{Name: "resolution", Value: "done", Usage: "done or wontfix"},
			&cli.StringFlag{Name: "self-close-exception", Usage: "close your own work anyway, for this `REASON` (audited)"},
			&cli.StringFlag{Name: "duplicate-of", Usage: "close as a duplicate of `OTHER`: adds the duplicate_of link, resolution duplicate"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "close without asking or warning about open children"},
			overrideCriteriaFlag(),
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			o := &CloseOptions{Session: c.String("session"), Issue: a[0], Reason: c.String("reason"), Resolution: c.String("resolution"),
				SelfCloseException: c.String("self-close-exception"), DuplicateOf: c.String("duplicate-of"), Yes: c.Bool("yes"),
				OverrideOpenCriteria: c.String("override-open-criteria")}
			if o.DuplicateOf != "" {
				if c.IsSet("resolution") {
					return usagef("--duplicate-of closes with resolution duplicate; drop --resolution")
				}
				o.Resolution = ""
			}
			if runF != nil {
				return runF(o)
			}
			return r.runClose(o)
		},
	}
}

// runClose closes the issue, or closes it as a duplicate, once the open
// children are asked about (on a terminal) or refused (elsewhere).
func (r *runner) runClose(o *CloseOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	if err := r.openChildrenBeforeClose(o, s, se); err != nil {
		return err
	}
	topts := issues.TransitionOptions{Reason: o.Reason, SelfCloseException: o.SelfCloseException, Resolution: o.Resolution,
		OverrideOpenCriteria: o.OverrideOpenCriteria}
	var res *issues.TransitionResult
	if o.DuplicateOf != "" {
		res, err = issues.CloseDuplicate(s, se, o.Issue, o.DuplicateOf, topts)
	} else {
		res, err = issues.Close(s, se, o.Issue, topts)
	}
	if err != nil {
		r.warnSecurity(res)
		return err
	}
	return r.printTransition("close", "Closed", res)
}

// openChildrenBeforeClose checks the open children of the issue before
// anything is written: on a terminal it lists them and asks; elsewhere
// (a script, an agent, --json) it refuses, naming them. --yes (and a
// subagent, which cannot be asked) skips the check.
func (r *runner) openChildrenBeforeClose(o *CloseOptions, s *repo.Store, se *repo.Session) error {
	if o.Yes || se.IsSubagent() {
		return nil
	}
	// Ask only about a close that could happen: the step itself reports
	// an unknown or unreadable issue, or one already closed.
	is, err := s.Issue(o.Issue)
	if err != nil || is.Status == domain.StatusClosed {
		return nil
	}
	id := is.ID
	children, err := links.OpenChildren(s, id)
	if err != nil || len(children) == 0 {
		return err
	}
	if r.st.wantsJSON() || !r.interactive() {
		named := make([]string, len(children))
		for i, ch := range children {
			named[i] = fmt.Sprintf("%s %q", ch.ID, ch.Title)
		}
		n := len(children)
		return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("cannot close %s: it has %d open %s (%s); close %s first, or pass --yes to close %s and leave %s open",
			id, n, domain.Plural(n, "child", "children"), strings.Join(named, ", "), domain.Plural(n, "it", "them"), id, domain.Plural(n, "it", "them"))}
	}
	if r.askClose(id, children) {
		return nil
	}
	return &repo.Error{Code: repo.CodeRefused, Msg: fmt.Sprintf("%s not closed: it has open children; close them first, or answer y (--yes skips the question)", id)}
}

// askClose lists the open children and asks whether to close id anyway;
// only y or yes says so.
func (r *runner) askClose(id string, children []*repo.Issue) bool {
	n := len(children)
	r.st.printf("%s has %d open %s:\n", id, n, domain.Plural(n, "child", "children"))
	r.printChildren(r.st.out, children)
	r.st.printf("Close %s anyway? %s open. [y/N] ", id, domain.Plural(n, "It stays", "They stay"))
	line, _ := bufio.NewReader(r.st.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

func (r *runner) printChildren(w io.Writer, children []*repo.Issue) {
	var b strings.Builder
	for _, ch := range children {
		fmt.Fprintf(&b, "  %s  %s%s  %s\n", ch.ID, ch.Status, strings.Repeat(" ", max(len("in_progress")-len(ch.Status), 0)), safe(ch.Title))
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
