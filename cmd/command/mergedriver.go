package command

import (
	"fmt"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// maxMergeInput bounds each side a merge reads.
const maxMergeInput = 16 << 20

func (r *runner) mergeDriverCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge-driver",
		Usage:     "merge two edits of an issue file (git calls this; td init registers it)",
		ArgsUsage: "BASE OURS THEIRS [PATH]",
		Description: `Git runs this for .todos/issues/*.md (see .gitattributes) as
   td merge-driver %O %A %B %P
It merges line by line like git's own merge: a region changed on one side
takes that side, an identical change is taken once, and different changes to
the same region are marked with <<<<<<< ours / ======= / >>>>>>> theirs. The
result replaces OURS. Exit 0 when clean, 1 when conflicts were marked.

Examples:
   td merge-driver base.md ours.md theirs.md .todos/issues/td-k3x9qa.md`,
		Action: func(c *cli.Context) error {
			a, err := args(c, 3, 4, "BASE OURS THEIRS [PATH]")
			if err != nil {
				return err
			}
			path := a[1]
			if len(a) == 4 {
				path = a[3]
			}
			var sides [3][]byte
			for i, f := range a[:3] {
				if sides[i], err = r.readInput(f, maxMergeInput); err != nil {
					return err
				}
			}
			merged, conflict := markdown.MergeLines(sides[0], sides[1], sides[2], "ours", "theirs")
			if err := repo.WriteFileAtomic(a[1], merged); err != nil {
				return err
			}
			if r.st.json {
				if err := r.st.emitJSON(map[string]any{"path": path, "conflict": conflict}); err != nil {
					return err
				}
			}
			if conflict {
				return fmt.Errorf("%s: both sides changed the same lines; resolve the marked regions and commit", path)
			}
			return nil
		},
	}
}
