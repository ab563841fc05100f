package command

import (
	"strconv"
	"strings"

	"github.com/tdproject/td/repo/board"
	"github.com/urfave/cli/v2"
)

// BoardOptions are td board's inputs, as parsed from the command line.
type BoardOptions struct {
	// Filter is --label (split at commas), --assignee, --epic and --days.
	Filter board.Filter
	// Limit is --limit: the most cards shown in a column, 0 for all; -1
	// when not given (boardPage on a terminal, all otherwise).
	Limit int
	// HTML is --html: write the pages as a static site into this
	// directory instead of printing the board.
	HTML string
	// Ranges are --diff: the revision ranges given a page in the site.
	Ranges []string
}

// boardPage is how many cards a column shows a person at a terminal
// unless --limit says otherwise.
const boardPage = 15

// boardCommand is td board. runF, when not nil, replaces runBoard.
func (r *runner) boardCommand(runF func(*BoardOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "board",
		Usage: "the work at a glance: issues in columns by status, with progress and claims",
		Description: `Shows the work at a glance, one column per status: open, in progress,
blocked, in review, and closed in the last 7 days (--days N). Each card
has the issue's ID, priority and title, who it is assigned to by name,
its todo progress (steps and criteria done of all not dropped: 3/7), the
acceptance criteria still open, an epic's children closed (children 3/5
closed), and a claim held in another work tree or on another machine.
Cards are sorted as td list sorts them: most urgent, then oldest first.

On a terminal the columns stand side by side, as wide as the terminal
(COLUMNS overrides what td detects), each showing its first 15 cards and
how many more there are (--limit N, 0 for all); with colour on, progress
also shows as a bar. Piped, td board prints one section per column and
every card. --json writes the whole board.

--epic ID keeps the issues below an issue by child_of links, at any depth;
--label and --assignee filter as td list's do.

--html DIR writes the board as a static site instead: DIR/index.html (the
board, filtered as asked), a page per issue in DIR/issues/ (description,
criteria, todos, links, ledger, commits), a page of the changes since the
default branch in DIR/diff/ (--diff RANGE names others: BASE or BASE..HEAD)
and a style sheet. The pages link each other by relative paths and load
nothing from elsewhere: open DIR/index.html, or put DIR on any static host.
Each file is replaced whole; DIR must be new, empty or a site td wrote
(its .td-site lists the files, and only those are replaced or removed).
td serve shows the same pages live.

Examples:
   td board
   td board --label auth --assignee bob
   td board --epic td-a0b
   td board --days 14 --limit 0
   td board --json
   td board --html site/ && open site/index.html
   td board --html /var/www/td --diff main --diff v1.2..v1.3`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "only issues carrying every one of these labels"},
			&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "only issues assigned to this: session:ID, a session's name, or a person's name, email or the email's part before @; case-insensitive"},
			&cli.StringFlag{Name: "epic", Usage: "only the issues below the issue `ID` (child_of, at any depth)"},
			&cli.IntFlag{Name: "days", Value: board.DefaultRecentDays, Usage: "the closed column shows issues closed in the last `N` days"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: -1, Usage: "show at most `N` cards a column (0: all; default: 15 on a terminal, all otherwise)"},
			&cli.StringFlag{Name: "html", Usage: "write the board, a page per issue and the changes as a static site into `DIR`"},
			&cli.StringSliceFlag{Name: "diff", Usage: "with --html, a page of the changes of `RANGE` (BASE or BASE..HEAD); repeatable"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			o := &BoardOptions{Filter: board.Filter{Labels: splitValues(c.StringSlice("label")), Assignee: c.String("assignee"),
				Epic: c.String("epic"), RecentDays: c.Int("days")}, Limit: c.Int("limit"), HTML: c.String("html"), Ranges: c.StringSlice("diff")}
			if c.IsSet("html") && strings.TrimSpace(o.HTML) == "" {
				return usagef("--html needs a directory")
			}
			if len(o.Ranges) > 0 && o.HTML == "" {
				return usagef("--diff names a page of the site: give --html DIR too (td diff prints the changes)")
			}
			if c.IsSet("epic") && strings.TrimSpace(o.Filter.Epic) == "" {
				return usagef("--epic needs an issue ID")
			}
			if o.Filter.RecentDays < 1 {
				return usagef("--days must be 1 or more, not %d", o.Filter.RecentDays)
			}
			if c.IsSet("limit") && o.Limit < 0 {
				return usagef("--limit must be 0 (all) or more, not %d", o.Limit)
			}
			if runF != nil {
				return runF(o)
			}
			return r.runBoard(o)
		},
	}
}

// runBoard builds the board and shows it: side by side on a terminal wide
// enough, one section per column otherwise, or as JSON.
func (r *runner) runBoard(o *BoardOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	if o.HTML != "" {
		return r.runBoardHTML(s, o)
	}
	b, err := board.Build(s, o.Filter)
	if err != nil {
		return err
	}
	for _, pe := range b.Unreadable {
		r.st.warnf("%v", pe)
	}
	return r.st.export(func() any { return boardJSON{b} }, func() error {
		limit := o.Limit
		if limit < 0 && r.st.tty {
			limit = boardPage
		}
		if r.st.tty {
			if w := r.terminalWidth(); w >= boardMinWidth {
				r.st.print(r.st.boardColumns(b, w, limit))
				return nil
			}
		}
		r.st.print(r.st.boardSections(b, limit))
		return nil
	})
}

// terminalWidth is how many columns the terminal on stdout has: COLUMNS
// when it holds a number, else what the terminal says, else 80.
func (r *runner) terminalWidth() int {
	if n, err := strconv.Atoi(strings.TrimSpace(r.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if n := terminalColumns(r.st.out); n > 0 {
		return n
	}
	return 80
}
