package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestImportOptions(t *testing.T) {
	for _, src := range []importSource{beadsSource(), backlogSource(), githubSource(), marcusTDSource(), jsonlSource()} {
		build := func(r *runner, runF func(*ImportOptions) error) *cli.Command { return r.importSourceCommand(src, runF) }
		checkParse(t, "import", build, []parseCase[ImportOptions]{
			{name: src.name + " path", argv: []string{"import", src.name, "in"}, want: ImportOptions{Source: src.name, Path: "in"}},
			{name: src.name + " dry run", argv: []string{"import", src.name, "in", "--dry-run"}, want: ImportOptions{Source: src.name, Path: "in", DryRun: true}},
			{name: src.name + " skip bad", argv: []string{"import", src.name, "--skip-bad", "-n", "in", "--session", "s-1"}, want: ImportOptions{Source: src.name, Path: "in", DryRun: true, SkipBad: true, Session: "s-1"}},
			{name: src.name + " no path", argv: []string{"import", src.name}, usage: true},
			{name: src.name + " two paths", argv: []string{"import", src.name, "a", "b"}, usage: true},
		})
	}
}

func TestExportOptions(t *testing.T) {
	testParse(t, (*runner).exportCommand, []parseCase[ExportOptions]{
		{name: "default", argv: []string{"export"}, want: ExportOptions{Format: "jsonl"}},
		{name: "github", argv: []string{"export", "--format", "github"}, want: ExportOptions{Format: "github"}},
		{name: "unknown format", argv: []string{"export", "--format", "csv"}, usage: true},
		{name: "argument", argv: []string{"export", "x"}, usage: true},
	})
}

// TestProgress: a short import shows nothing; a long one a count line
// when stderr is not a terminal, and nothing with --json.
func TestProgress(t *testing.T) {
	for _, tt := range []struct {
		name    string
		records int
		json    bool
		want    string
	}{
		{name: "short", records: 10, want: ""},
		{name: "long", records: 5000, want: "td import: 1 of 4 steps\ntd import: 4 of 4 steps\n"},
		{name: "long with --json", records: 5000, json: true, want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			r := &runner{st: &streams{out: &bytes.Buffer{}, errOut: &errOut, json: tt.json}}
			p := r.progress("td import", tt.records)
			for i := 1; i <= 4; i++ {
				p.update(i, 4)
			}
			p.done()
			if got := errOut.String(); got != tt.want {
				t.Fatalf("progress wrote %q, want %q", got, tt.want)
			}
			if strings.Contains(errOut.String(), "\r") {
				t.Fatal("a bar was drawn on a stream that is not a terminal")
			}
		})
	}
}
