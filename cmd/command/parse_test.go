package command

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// parseCase is one row of a command's parse test: a command line (without
// the program name), what standard input holds, and the Options it parses
// to or that it is a usage error.
type parseCase[O any] struct {
	name  string
	argv  []string
	stdin string
	json  bool // --json was given (Run decides it before parsing)
	want  O
	usage bool // a usage error (exit 2), and the command does not run
}

// testParse runs each case's command line through the command build
// returns, with a run function that records the Options, and compares
// them with the case's.
func testParse[O any](t *testing.T, build func(*runner, func(*O) error) *cli.Command, cases []parseCase[O]) {
	t.Helper()
	checkParse(t, "", build, cases)
}

// checkParse is testParse for a subcommand: under parent when parent is
// not "" (td session bind is "bind" under "session").
func checkParse[O any](t *testing.T, parent string, build func(r *runner, runF func(*O) error) *cli.Command, cases []parseCase[O]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var got *O
			r := &runner{st: &streams{in: strings.NewReader(tt.stdin), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}, json: tt.json},
				getenv: func(string) string { return "" }}
			cmd := build(r, func(o *O) error { got = o; return nil })
			if parent != "" {
				cmd = &cli.Command{Name: parent, Subcommands: []*cli.Command{cmd}}
			}
			err := runCommand(r, cmd, tt.argv)
			if tt.usage {
				if exitCode(err) != 2 {
					t.Fatalf("err = %v, want a usage error", err)
				}
				if got != nil {
					t.Fatalf("ran with %+v after a usage error", *got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the run function was not called")
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("parsed %+v, want %+v", *got, tt.want)
			}
		})
	}
}
