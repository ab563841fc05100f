package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/tdproject/td/repo/exchange"
	"github.com/urfave/cli/v2"
)

// ImportOptions are the inputs every td import subcommand takes: they
// differ only in the source they read, so they share one Options.
type ImportOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Source is the subcommand: beads, backlog, github, marcus-td or jsonl.
	Source string
	// Path is the file or folder to read, as typed ("-" is standard input
	// for the file sources).
	Path string
	// DryRun is --dry-run: say what would be created and updated, write
	// nothing.
	DryRun bool
	// SkipBad is --skip-bad: import the good rows of an input with bad ones.
	SkipBad bool
}

// importSource is one source td import reads: its subcommand's words and
// its reader.
type importSource struct {
	name, usage, args, description string
	// read parses the input at path (resolved) shown as typed.
	read func(r *runner, o *ImportOptions) (*exchange.Parsed, error)
}

// maxImportInput bounds an input file td import reads.
const maxImportInput = 1 << 30

// importCommand is td import, the parent of one subcommand per source.
func (r *runner) importCommand() *cli.Command {
	var subs []*cli.Command
	for _, src := range []importSource{beadsSource(), backlogSource(), githubSource(), marcusTDSource(), jsonlSource()} {
		subs = append(subs, r.importSourceCommand(src, nil))
	}
	return &cli.Command{
		Name:  "import",
		Usage: "bring issues in from beads, Backlog.md, GitHub, marcus/td or td's own export",
		Description: `Each source is a subcommand. An import is one transaction: every issue and
ledger entry lands, or none does (one commit in git mode auto). A second import
of the same source updates the issues the first made (their imported_from key)
instead of making new ones. td help importing has the mapping.

Examples:
   td import beads .beads/issues.jsonl --dry-run
   td import backlog backlog
   gh issue list --json number,title,body,state,labels,assignees,comments,createdAt,closedAt | td import github -
   td import marcus-td .todos/issues.db
   td export --format jsonl > issues.jsonl && td -C ../other import jsonl issues.jsonl`,
		Subcommands: subs,
	}
}

// importSourceCommand is td import SOURCE. runF, when not nil, replaces
// runImport.
func (r *runner) importSourceCommand(src importSource, runF func(*ImportOptions) error) *cli.Command {
	return &cli.Command{
		Name:        src.name,
		Usage:       src.usage,
		ArgsUsage:   src.args,
		Description: src.description,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be created and updated; write nothing"},
			&cli.BoolFlag{Name: "skip-bad", Usage: "import the rows td can read and report the others, instead of importing nothing"},
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, src.args)
			if err != nil {
				return err
			}
			o := &ImportOptions{Session: c.String("session"), Source: src.name, Path: a[0],
				DryRun: c.Bool("dry-run"), SkipBad: c.Bool("skip-bad")}
			if runF != nil {
				return runF(o)
			}
			return r.runImport(src, o)
		},
	}
}

// importJSON is td import's --json answer.
type importJSON struct {
	DryRun    bool              `json:"dry_run"`
	Created   []exchange.Change `json:"created"`
	Updated   []exchange.Change `json:"updated"`
	Unchanged []exchange.Change `json:"unchanged"`
	Skipped   []importSkipJSON  `json:"skipped"`
	Warnings  []string          `json:"warnings"`
}

type importSkipJSON struct {
	At     string `json:"at"`
	Reason string `json:"reason"`
}

// runImport reads the source and applies it.
func (r *runner) runImport(src importSource, o *ImportOptions) error {
	if _, err := r.openStore(); err != nil {
		return err
	}
	p, err := src.read(r, o)
	if err != nil {
		return err
	}
	if err := exchange.Precheck(o.Path, p, o.SkipBad); err != nil {
		return err
	}
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	prog := r.progress("td import", len(p.Records))
	res, err := exchange.Apply(s, se, o.Path, p, exchange.Options{DryRun: o.DryRun, SkipBad: o.SkipBad, Progress: prog.update})
	prog.done()
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		j := importJSON{DryRun: res.DryRun, Created: nonNilChanges(res.Created), Updated: nonNilChanges(res.Updated),
			Unchanged: nonNilChanges(res.Unchanged), Skipped: []importSkipJSON{}, Warnings: res.Warnings}
		if j.Warnings == nil {
			j.Warnings = []string{}
		}
		for _, b := range res.Skipped {
			j.Skipped = append(j.Skipped, importSkipJSON{At: b.At.String(), Reason: b.Reason})
		}
		return j
	}, func() error {
		for _, w := range res.Warnings {
			r.st.warnf("%s", w)
		}
		for _, b := range res.Skipped {
			r.st.warnf("%s (skipped)", b)
		}
		r.printImport(src.name, res)
		return nil
	})
}

func nonNilChanges(c []exchange.Change) []exchange.Change {
	if c == nil {
		return []exchange.Change{}
	}
	return c
}

// printImport prints what an import did, or would do.
func (r *runner) printImport(source string, res *exchange.Result) {
	verb := map[bool][3]string{false: {"created", "updated", "unchanged"}, true: {"would create", "would update", "unchanged"}}[res.DryRun]
	for _, c := range res.Created {
		id := c.ID
		if id == "" {
			id = "(new)"
		}
		r.st.printf("%-12s  %s  %s  %s\n", verb[0], id, safe(c.Source), safe(c.Title))
	}
	for _, c := range res.Updated {
		r.st.printf("%-12s  %s  %s  %s (%s)\n", verb[1], c.ID, safe(c.Source), safe(c.Title), strings.Join(c.Fields, ", "))
	}
	n := len(res.Created) + len(res.Updated) + len(res.Unchanged)
	words := [2]string{"created", "updated"}
	if res.DryRun {
		words = [2]string{"to create", "to update"}
	}
	summary := fmt.Sprintf("%s: %d %s, %d %s, %d %s, %d unchanged", source, n, plural(n, "issue", "issues"),
		len(res.Created), words[0], len(res.Updated), words[1], len(res.Unchanged))
	if len(res.Skipped) > 0 {
		summary += fmt.Sprintf(", %d skipped", len(res.Skipped))
	}
	if res.DryRun {
		r.st.printf("Dry run, nothing written: %s.\n", summary)
		return
	}
	r.st.printf("Imported from %s.\n", summary)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// progress shows how far a long command is on stderr: a bar on a
// terminal, a count line now and then otherwise; nothing for a short one
// or with --json.
type progress struct {
	r     *runner
	what  string
	tty   bool
	start time.Time
	last  time.Time
	shown bool
	min   int
}

// progressAfter is how long a command runs before it shows progress, and
// progressAtLeast how many records it must have.
const (
	progressAfter   = time.Second
	progressAtLeast = 1000
)

func (r *runner) progress(what string, records int) *progress {
	p := &progress{r: r, what: what, start: time.Now(), min: records}
	p.tty = isTerminal(r.st.errOut)
	if r.st.wantsJSON() {
		p.r = nil
	}
	return p
}

// update hears done of total steps.
func (p *progress) update(done, total int) {
	if p == nil || p.r == nil {
		return
	}
	now := time.Now()
	if p.min < progressAtLeast && now.Sub(p.start) < progressAfter {
		return
	}
	every := time.Second
	if p.tty {
		every = 100 * time.Millisecond
	}
	if p.shown && now.Sub(p.last) < every && done != total {
		return
	}
	p.last, p.shown = now, true
	if p.tty {
		const width = 30
		filled := width * done / max(total, 1)
		fmt.Fprintf(p.r.st.errOut, "\r%s [%s%s] %d/%d", p.what, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
		return
	}
	fmt.Fprintf(p.r.st.errOut, "%s: %d of %d steps\n", p.what, done, total)
}

// done ends the bar's line.
func (p *progress) done() {
	if p == nil || p.r == nil || !p.shown {
		return
	}
	if p.tty {
		fmt.Fprintln(p.r.st.errOut)
	}
}
