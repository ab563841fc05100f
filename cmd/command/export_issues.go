package command

import (
	"encoding/json"
	"io"

	"github.com/tdproject/td/repo/exchange"
	"github.com/urfave/cli/v2"
)

// This file is td export; export.go is the output helper every command
// prints through (streams.export).

// ExportOptions are td export's inputs, as parsed from the command line.
type ExportOptions struct {
	// Format is --format: jsonl or github.
	Format string
}

// Export formats.
const (
	exportJSONL  = "jsonl"
	exportGitHub = "github"
)

// exportCommand is td export. runF, when not nil, replaces runExport.
func (r *runner) exportCommand(runF func(*ExportOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write every issue out: td's JSONL (every field, todos, ledger) or GitHub's issue form",
		Description: `--format jsonl writes one issue a line: every frontmatter field, the other
frontmatter keys, the body, the todos and the ledger; td import jsonl reads it
back. --format github writes a JSON list of {title, body, labels, assignees,
state}, the body ending in the criteria and todos as task lists: what
gh issue create takes.

Examples:
   td export --format jsonl > issues.jsonl
   td export --format github > issues.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: exportJSONL, Usage: "jsonl or github"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--format jsonl|github]"); err != nil {
				return err
			}
			o := &ExportOptions{Format: c.String("format")}
			if o.Format != exportJSONL && o.Format != exportGitHub {
				return usagef("--format %q must be jsonl or github", o.Format)
			}
			if runF != nil {
				return runF(o)
			}
			return r.runExport(o)
		},
	}
}

// exportedStream writes the export in its format, with or without --json:
// the format is JSON already.
type exportedStream struct {
	format string
	issues []*exchange.ExportedIssue
}

// WriteJSON writes the issues in the export's format.
func (e exportedStream) WriteJSON(w io.Writer) error {
	if e.format == exportJSONL {
		return exchange.WriteJSONL(w, e.issues)
	}
	forms := make([]exchange.GitHubIssue, 0, len(e.issues))
	for _, is := range e.issues {
		forms = append(forms, exchange.GitHubForm(is))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(forms)
}

// runExport reads every issue and writes it out; unreadable files are
// reported on stderr and left out.
func (r *runner) runExport(o *ExportOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	ex, err := exchange.Export(s)
	if err != nil {
		return err
	}
	for _, e := range ex.Errors {
		r.st.warnf("%v (not exported)", e)
	}
	out := exportedStream{format: o.Format, issues: ex.Issues}
	return r.st.export(func() any { return out }, func() error { return out.WriteJSON(r.st.out) })
}
