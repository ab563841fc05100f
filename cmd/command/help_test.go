package command

import (
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
