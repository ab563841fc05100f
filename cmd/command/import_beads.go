package command

import (
	"bytes"

	"github.com/tdproject/td/repo/exchange"
)

// beadsSource is td import beads: beads' JSONL export.
func beadsSource() importSource {
	return importSource{
		name:  "beads",
		usage: "import beads' JSONL export (.beads/issues.jsonl, bd export)",
		args:  "FILE",
		description: `FILE holds one beads issue a line ("-" reads standard input). Statuses,
priorities (0..4 become P0..P4) and types map onto td's; dependencies become
links (blocks: blocked_by, parent-child: child_of, related: relates_to);
acceptance_criteria become criteria; comments and closing go to the ledger with
their authors and times. Other fields are kept under imported:.

Examples:
   td import beads .beads/issues.jsonl --dry-run
   td import beads .beads/issues.jsonl
   bd export | td import beads -`,
		read: func(r *runner, o *ImportOptions) (*exchange.Parsed, error) {
			data, err := r.readInput(o.Path, maxImportInput)
			if err != nil {
				return nil, err
			}
			return exchange.ParseBeads(o.Path, bytes.NewReader(data))
		},
	}
}
