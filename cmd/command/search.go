package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/search"
	"github.com/urfave/cli/v2"
)

// SearchOptions are td search's inputs, as parsed from the command line.
type SearchOptions struct {
	// Query is the text to look for, the arguments joined by spaces.
	Query string
	// Open is --open: leave closed issues out.
	Open bool
	// Limit is --limit: the most issues shown (0: all).
	Limit int
}

// searchCommand is td search. runF, when not nil, replaces runSearch.
func (r *runner) searchCommand(runF func(*SearchOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "find issues by the words in their titles, descriptions, todos and comments",
		ArgsUsage: "TEXT...",
		Description: `An issue matches when every word of TEXT appears in it, in any case: in its
title, description, acceptance criteria, todos, their notes or its comments.
The best matches come first (a word in the title counts most, then criteria
and todos, the description, notes and comments), then the more urgent and
the older. Each issue is listed with the lines that matched, where they are
and their line in the file (a comment's: in the issue's ledger). Closed
issues are searched too, unless --open. A filter of each issue's words,
kept in .todos/local/search.bin while the issue file and its ledger do not
change, spares reading the issues that cannot match (td help performance).

Examples:
   td search oauth callback
   td search "state parameter" --open
   td search rate limit --limit 5 --json`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "open", Usage: "leave closed issues out"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "show at most `N` issues (0: all)"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, -1, "TEXT...")
			if err != nil {
				return err
			}
			if c.Int("limit") < 0 {
				return usagef("--limit must be 0 (all) or more, not %d", c.Int("limit"))
			}
			o := &SearchOptions{Query: strings.Join(a, " "), Open: c.Bool("open"), Limit: c.Int("limit")}
			if runF != nil {
				return runF(o)
			}
			return r.runSearch(o)
		},
	}
}

// runSearch searches and prints the hits.
func (r *runner) runSearch(o *SearchOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	res, errs, err := search.Run(s, o.Query, search.Options{Open: o.Open, Limit: o.Limit})
	if err != nil {
		return err
	}
	for _, e := range errs {
		r.st.warnf("%v", e)
	}
	return r.st.export(func() any { return res }, func() error {
		if res.Total == 0 {
			r.st.printf("No issue holds %s.\n", domain.QuoteList(res.Words))
			return nil
		}
		for _, h := range res.Hits {
			r.st.printf("%s  %s  %s  %s\n", r.st.paint(ansiBold, h.ID), h.Priority, r.st.paint(r.st.statusColor(h.Status), string(h.Status)), safe(h.Title))
			for _, m := range h.Matches {
				if m.Where == search.InTitle {
					continue
				}
				r.st.printf("    %s:%d  %s\n", m.Where, m.Line, safe(m.Text))
			}
		}
		if n := res.Total - len(res.Hits); n > 0 {
			r.st.printf("%d more: td search %s --limit 0 shows all %d.\n", n, safe(quoteArgs([]string{o.Query})), res.Total)
		}
		return nil
	})
}
