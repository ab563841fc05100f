package command

import (
	"bytes"

	"github.com/tdproject/td/repo/exchange"
)

// jsonlSource is td import jsonl: td's own export, the way back in.
func jsonlSource() importSource {
	return importSource{
		name:  "jsonl",
		usage: "import td's own JSONL export (td export --format jsonl) into this repository",
		args:  "FILE",
		description: `FILE is what td export --format jsonl wrote ("-" reads standard input). Each
issue keeps its ID when this repository has none of that name, its fields, its
body byte for byte and its other frontmatter keys; its ledger comes back as
imported history, comments as comments under their authors.

Examples:
   td export --format jsonl > issues.jsonl
   td -C ../other import jsonl ../this/issues.jsonl`,
		read: func(r *runner, o *ImportOptions) (*exchange.Parsed, error) {
			data, err := r.readInput(o.Path, maxImportInput)
			if err != nil {
				return nil, err
			}
			return exchange.ParseJSONL(o.Path, bytes.NewReader(data))
		},
	}
}
