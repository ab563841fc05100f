package command

import (
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// UnlinkOptions are td unlink's inputs, as parsed from the command line.
type UnlinkOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Issue, Kind and Other are the link as typed: ID KIND OTHER.
	Issue, Kind, Other string
}

// unlinkCommand is td unlink. runF, when not nil, replaces runUnlink.
func (r *runner) unlinkCommand(runF func(*UnlinkOptions) error) *cli.Command {
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
			a, err := args(c, 3, 3, "ID KIND OTHER")
			if err != nil {
				return err
			}
			o := &UnlinkOptions{Session: c.String("session"), Issue: a[0], Kind: a[1], Other: a[2]}
			if runF != nil {
				return runF(o)
			}
			return r.runUnlink(o)
		},
	}
}

// runUnlink removes the link from the issue that stores it.
func (r *runner) runUnlink(o *UnlinkOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := links.Unlink(s, se, o.Issue, o.Kind, o.Other)
	if err != nil {
		return err
	}
	return r.reportLink("unlinked", "Unlinked", res)
}
