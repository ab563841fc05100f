package command

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/tdproject/td/cmd/command/help"
	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	r := &runner{st: &streams{in: strings.NewReader(""), out: io.Discard, errOut: io.Discard}, getenv: func(string) string { return "" }}
	return r.app()
}

// A command added to the list and not to commandGroups would be listed
// under "Other commands"; the table must say where it belongs.
func TestEveryCommandIsGrouped(t *testing.T) {
	app := testApp()
	listed := map[string]bool{}
	for _, g := range commandGroups() {
		for _, n := range g.Names {
			if listed[n] {
				t.Errorf("%s is in two groups", n)
			}
			listed[n] = true
			if findCommand(app.Commands, n) == nil {
				t.Errorf("group %q names %q, which is not a command", g.Title, n)
			}
		}
		if g.Topic != "" {
			if _, ok, _ := help.Lookup(g.Topic); !ok {
				t.Errorf("group %q points to td help %s, which is not a topic", g.Title, g.Topic)
			}
		}
	}
	for _, c := range app.Commands {
		if !listed[c.Name] {
			t.Errorf("command %q is in no group of commandGroups", c.Name)
		}
		if c.Category == "" {
			t.Errorf("command %q has no category", c.Name)
		}
	}
}

// td help NAME looks for a topic before a command, so no topic may take a
// command's name or alias.
func TestTopicNamesAreNotCommands(t *testing.T) {
	app := testApp()
	for _, name := range help.Names() {
		if c := findCommand(app.Commands, name); c != nil {
			t.Errorf("topic %q hides the help of command %q; rename the topic", name, c.Name)
		}
	}
}

// Every "td help X" a page or the command list mentions must lead
// somewhere: a topic or a command.
func TestHelpReferencesResolve(t *testing.T) {
	app := testApp()
	ref := regexp.MustCompile(`td help ([a-z][a-z-]*)`)
	ts, err := help.Topics()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range ts {
		for _, m := range ref.FindAllStringSubmatch(tp.Markdown, -1) {
			name := m[1]
			if _, ok, _ := help.Lookup(name); ok {
				continue
			}
			if findCommand(app.Commands, name) == nil {
				t.Errorf("topic %s mentions td help %s, which is neither a topic nor a command", tp.Name, name)
			}
		}
	}
}

// runHelpCommand is runCommand with a second command, td list, for td
// help to know.
func runHelpCommand(r *runner, help *cli.Command, argv []string) error {
	app := r.app()
	app.Commands = []*cli.Command{help, {Name: "list", Usage: "lists issues", Action: func(*cli.Context) error { return nil }}}
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return &usageError{err.Error()} }
	for _, c := range app.Commands {
		setUsageHandlers(c)
		r.recordRuns(c)
	}
	return app.Run(reorderArgs(app, append([]string{"td"}, argv...)))
}

func TestHelpOptions(t *testing.T) {
	tests := []struct {
		name           string
		argv           []string
		topic, command string
		usage          bool
	}{
		{name: "list", argv: []string{"help"}},
		{name: "topic", argv: []string{"help", "format"}, topic: "format"},
		{name: "command", argv: []string{"help", "list"}, command: "list"},
		{name: "command, words after", argv: []string{"h", "list", "more"}, command: "list"},
		{name: "topic, words after", argv: []string{"help", "format", "more"}, usage: true},
		{name: "neither", argv: []string{"help", "nosuch"}, usage: true},
		{name: "a path", argv: []string{"help", "../format"}, usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *HelpOptions
			r := &runner{st: &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}, getenv: func(string) string { return "" }}
			err := runHelpCommand(r, r.helpCommand(func(o *HelpOptions) error { got = o; return nil }), tt.argv)
			if tt.usage {
				if exitCode(err) != 2 || got != nil {
					t.Fatalf("err = %v, ran %v; want a usage error", err, got != nil)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the run function was not called")
			}
			if got.Topic != tt.topic || got.Command != tt.command {
				t.Errorf("parsed topic %q command %q, want %q %q", got.Topic, got.Command, tt.topic, tt.command)
			}
			// show renders urfave/cli's help from the parsed tree.
			var help bytes.Buffer
			if err := got.show("help", &help); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(help.String(), "td help - list the commands and help topics") {
				t.Errorf("td help's own help is\n%s", help.String())
			}
			help.Reset()
			if err := got.show("", &help); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(help.String(), "HELP TOPICS (td help TOPIC):") {
				t.Errorf("td's help is\n%s", help.String())
			}
		})
	}
}
