package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/resolve"
	"github.com/urfave/cli/v2"
)

// maxMergeInput bounds each side a merge reads.
const maxMergeInput = 16 << 20

// MergeDriverOptions are td merge-driver's inputs, as parsed from the
// command line git builds.
type MergeDriverOptions struct {
	// Base, Ours and Theirs are the three files git gives (%O %A %B);
	// the result replaces Ours.
	Base, Ours, Theirs string
	// Path is the file's path in the repository (%P), for messages:
	// Ours when git gives none.
	Path string
}

// mergeDriverCommand is td merge-driver. runF, when not nil, replaces
// runMergeDriver.
func (r *runner) mergeDriverCommand(runF func(*MergeDriverOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "merge-driver",
		Usage:     "merge two edits of an issue file (git calls this; td init registers it)",
		ArgsUsage: "BASE OURS THEIRS [PATH]",
		Description: `Git runs this for .todos/issues/*.md (see .gitattributes) as
   td merge-driver %O %A %B %P
It merges the two edits of the issue file the way td understands it:
  - frontmatter key by key: a key changed on one side takes that side;
    labels and links merge as sets (what either side added or removed),
    written one a line; updated_at takes the later time; unknown keys are
    kept;
  - the body piece by piece (the description, each section, each phase),
    matched by heading: sections both sides added are both kept, ours
    first, acceptance criteria before the Todos section;
  - todos one by one, matched by section, phase and text: a status changed
    on one side wins; a todo started on one side and given another status
    on the other (done, dropped, blocked) takes that status, since td starts
    the next step by itself; notes merge as sets (added on either side:
    kept; removed on one side: gone); todos added on either side
    are kept at the end of their phase (ours first); a todo deleted on one
    side and untouched on the other goes; an order one side gave the todos
    is kept unless the other gave them another; one todo at most stays in
    progress, the first in the file;
  - other text line by line, as git would, except that lines both sides
    added at one place (two appended paragraphs) are both kept, ours first.
When something changed differently on both sides (the title, the status
of the same todo, the same line of the description), that alone is
marked with <<<<<<< ours / ======= / >>>>>>> theirs; the rest is merged.
Where both sides moved the issue's status, td resolve keeps the one td
check --base accepts. A file both sides added (an empty BASE) merges as
two additions to an empty issue. A side td cannot read is merged line by
line as a whole. The result replaces OURS. Exit 0 when clean, 1 when conflicts were
marked.

Examples:
   td merge-driver base.md ours.md theirs.md .todos/issues/td-k3x9qa.md
   td merge-driver --json base.md ours.md theirs.md`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 3, 4, "BASE OURS THEIRS [PATH]")
			if err != nil {
				return err
			}
			o := &MergeDriverOptions{Base: a[0], Ours: a[1], Theirs: a[2], Path: a[1]}
			if len(a) == 4 {
				o.Path = a[3]
			}
			if runF != nil {
				return runF(o)
			}
			return r.runMergeDriver(o)
		},
	}
}

// runMergeDriver merges the three sides into Ours and fails when it had
// to mark conflicts.
func (r *runner) runMergeDriver(o *MergeDriverOptions) error {
	var sides [3][]byte
	for i, f := range []string{o.Base, o.Ours, o.Theirs} {
		var err error
		if sides[i], err = r.readInput(f, maxMergeInput); err != nil {
			return err
		}
	}
	m := markdown.MergeIssueWith(sides[0], sides[1], sides[2], markdown.MergeOptions{})
	conflicts := m.Conflicts
	conflict := len(conflicts) > 0
	if err := repo.WriteFileAtomic(r.path(o.Ours), m.Data); err != nil {
		return err
	}
	if err := r.st.export(func() any { return map[string]any{"path": o.Path, "conflict": conflict} }, nil); err != nil {
		return err
	}
	if len(m.Demoted) > 0 {
		// git shows what the driver says: the one change the merge made
		// that neither side did.
		r.st.warnf("%s: %s", o.Path, resolve.DemotedNote(m.Demoted))
	}
	if conflict {
		if slices.Contains(conflicts, resolve.StatusConflict) {
			// td check --base accepts the status of the ledger's last
			// transition, which the driver cannot read: git merges the
			// ledger beside it. td resolve can, once git has stopped.
			return fmt.Errorf("%s: both sides changed %s; td check --base accepts either side's status, and td resolve keeps the later move's: run td resolve, then resolve what is still marked and commit", o.Path, strings.Join(conflicts, ", "))
		}
		return fmt.Errorf("%s: both sides changed %s; resolve the marked regions and commit", o.Path, strings.Join(conflicts, ", "))
	}
	return nil
}
