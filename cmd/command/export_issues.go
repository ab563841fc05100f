package command

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/tdproject/td/repo"
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
back.

--format github writes a JSON list, one element an issue, for GitHub's
REST API: {"td": ID, "create": {...}, "update": {...}}. "create" is the
request body of "Create an issue" (POST /repos/OWNER/REPO/issues): title,
body (the description, then the criteria and todos as task lists), labels
(td's labels and the priority), assignees (people, not agent sessions)
and type (Bug, Feature, Task, Chore, Epic: dropped by a repository whose
organisation has no such issue type). GitHub creates every issue open, so
a closed one has "update", the body of "Update an issue" (PATCH
/repos/OWNER/REPO/issues/NUMBER) that closes it: state closed, with
state_reason completed, not_planned (wontfix) or duplicate.

Examples:
   td export --format jsonl > issues.jsonl
   td export --format github > issues.json
   jq -c '.[]' issues.json | while read -r it; do
     n=$(echo "$it" | jq '.create' | gh api repos/OWNER/REPO/issues --input - --jq .number)
     echo "$it" | jq -e '.update' >/dev/null && echo "$it" | jq '.update' | gh api -X PATCH repos/OWNER/REPO/issues/$n --input -
   done`,
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

// exportedStream writes the export in its format, with or without --json
// (the format is JSON already), an issue at a time as it is read: the
// export of 100,000 issues never holds them all. The files td could not
// read are left in problems.
type exportedStream struct {
	format   string
	s        *repo.Store
	problems []error
}

// WriteJSON writes the issues in the export's format. The github form is
// the JSON list encoding/json writes with a two-space indent, written an
// element at a time.
func (e *exportedStream) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var (
		buf   bytes.Buffer
		enc   = json.NewEncoder(&buf)
		first = true
	)
	enc.SetEscapeHTML(false)
	if e.format != exportJSONL {
		enc.SetIndent("  ", "  ")
	}
	problems, err := exchange.ExportEach(e.s, func(is *exchange.ExportedIssue) error {
		buf.Reset()
		if e.format == exportJSONL {
			if err := enc.Encode(is); err != nil {
				return err
			}
			_, err := bw.Write(buf.Bytes())
			return err
		}
		if err := enc.Encode(exchange.GitHubForm(is)); err != nil {
			return err
		}
		sep := ",\n  "
		if first {
			sep, first = "[\n  ", false
		}
		bw.WriteString(sep)
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	})
	e.problems = problems
	if err != nil {
		return err
	}
	if e.format != exportJSONL {
		if first {
			bw.WriteString("[]\n")
		} else {
			bw.WriteString("\n]\n")
		}
	}
	return bw.Flush()
}

// runExport reads every issue and writes it out; unreadable files are
// reported on stderr and left out.
func (r *runner) runExport(o *ExportOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	out := &exportedStream{format: o.Format, s: s}
	err = r.st.export(func() any { return out }, func() error { return out.WriteJSON(r.st.jsonOut()) })
	for _, e := range out.problems {
		r.st.warnf("%v (not exported)", e)
	}
	return err
}
