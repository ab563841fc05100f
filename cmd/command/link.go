package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// LinkOptions are td link's inputs, as parsed from the command line.
type LinkOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue, Kind and Other are the link as typed: ID KIND OTHER.
	Issue, Kind, Other string
}

// linkCommand is td link. runF, when not nil, replaces runLink.
func (r *runner) linkCommand(runF func(*LinkOptions) error) *cli.Command {
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
			a, err := args(c, 3, 3, "ID KIND OTHER")
			if err != nil {
				return err
			}
			o := &LinkOptions{Session: c.String("session"), Issue: a[0], Kind: a[1], Other: a[2]}
			if runF != nil {
				return runF(o)
			}
			return r.runLink(o)
		},
	}
}

// runLink stores the link and says which issue holds it.
func (r *runner) runLink(o *LinkOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := links.Link(s, se, o.Issue, o.Kind, o.Other)
	if err != nil {
		return err
	}
	return r.reportLink("linked", "Linked", res)
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

// reportLink reports a link added or removed: action names it in JSON,
// done in the sentence.
func (r *runner) reportLink(action, done string, res *links.LinkResult) error {
	l := storedLinkJSON{From: res.Issue.ID, Kind: res.Link.Kind, To: res.Link.To}
	return r.st.export(func() any {
		return linkResultJSON{Action: action, Link: l, Issue: toIssueJSON(res.Issue)}
	}, func() error {
		r.st.printf("%s %s %s %s.\n", done, l.From, l.Kind, l.To)
		return nil
	})
}
