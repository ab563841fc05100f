package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/links"
	"github.com/urfave/cli/v2"
)

// LinksOptions are td links's inputs, as parsed from the command line.
type LinksOptions struct {
	// Issue is the issue whose links to list, as typed (an ID or a prefix).
	Issue string
}

// linksCommand is td links. runF, when not nil, replaces runLinks.
func (r *runner) linksCommand(runF func(*LinksOptions) error) *cli.Command {
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
			a, err := args(c, 1, 1, "ID")
			if err != nil {
				return err
			}
			o := &LinksOptions{Issue: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runLinks(o)
		},
	}
}

// runLinks lists the issue's links and their inverses, reporting the
// files it could not read on stderr.
func (r *runner) runLinks(o *LinksOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	is, links, perrs, err := links.Links(s, o.Issue)
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
	return r.st.export(func() any { return out }, func() error {
		r.printLinks(out)
		return nil
	})
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

func (r *runner) printLinks(out linksJSON) {
	st := r.st
	st.printf("%s  %s\n", st.paint(ansiBold, out.Issue.ID), safe(out.Issue.Title))
	if len(out.Links) == 0 {
		st.printf("No links.\n")
		return
	}
	kindW := len("duplicated_by")
	statusW := len("in_progress")
	var b strings.Builder
	for _, l := range out.Links {
		status, title := l.Status, safe(l.Title)
		if l.Missing {
			status, title = "?", "(no readable issue file)"
		}
		fmt.Fprintf(&b, "  %-*s  %s  %s%s  %s\n", kindW, l.Kind, st.paint(ansiBold, l.ID),
			st.statusColor(status), strings.Repeat(" ", max(statusW-len(status), 0)), title)
	}
	st.printf("%s", b.String())
}
