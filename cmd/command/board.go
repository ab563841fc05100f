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

Examples:
   td board
   td board --label auth --assignee bob
   td board --epic td-a0b
   td board --days 14 --limit 0
   td board --json`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "only issues carrying every one of these labels"},
			&cli.StringFlag{Name: "assignee", Aliases: []string{"a"}, Usage: "only issues assigned to this: session:ID, a session's name, or a person's name, email or the email's part before @; case-insensitive"},
			&cli.StringFlag{Name: "epic", Usage: "only the issues below the issue `ID` (child_of, at any depth)"},
			&cli.IntFlag{Name: "days", Value: board.DefaultRecentDays, Usage: "the closed column shows issues closed in the last `N` days"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: -1, Usage: "show at most `N` cards a column (0: all; default: 15 on a terminal, all otherwise)"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[flags]"); err != nil {
				return err
			}
			o := &BoardOptions{Filter: board.Filter{Labels: splitValues(c.StringSlice("label")), Assignee: c.String("assignee"),
				Epic: c.String("epic"), RecentDays: c.Int("days")}, Limit: c.Int("limit")}
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
	b, err := board.Build(s, o.Filter)
	if err != nil {
		return err
	}
	for _, pe := range b.Unreadable {
		r.st.warnf("%v", pe)
	}
	return r.st.export(func() any { return b }, func() error {
		limit := o.Limit
		if limit < 0 && r.st.tty {
			limit = boardPage
		}
		if r.st.tty {
			if w := r.terminalWidth(); w >= boardMinWidth {
				r.st.printf("%s", r.st.boardColumns(b, w, limit))
				return nil
			}
		}
		r.st.printf("%s", r.st.boardSections(b, limit))
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
