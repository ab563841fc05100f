package command

import (
	"bytes"
	"io"
	"strings"

	"github.com/tdproject/td/cmd/command/help"
	"github.com/urfave/cli/v2"
)

// appHelpTemplate is td help's page: urfave/cli's app help with the
// commands under td's own headings (commandGroups, in that order) and the
// help topics after them. It is executed through a tabwriter, so a tab
// separates a name from its summary.
const appHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{.HelpName}} [global options] command [command options]
   {{.HelpName}} help [COMMAND | TOPIC]{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}

COMMANDS:{{range .Metadata.groups}}

   {{.Heading}}:{{range .Commands}}
     {{join .Names ", "}}{{"\t"}}{{.Usage}}{{end}}{{end}}

HELP TOPICS (td help TOPIC):{{range call .Metadata.topics}}
   {{.Name}}{{"\t"}}{{.Summary}}{{end}}

GLOBAL OPTIONS:{{template "visibleFlagTemplate" .}}
`

// topicJSON is td help TOPIC --json, and td help COMMAND --json with the
// command's help text.
type topicJSON struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// topicSummaryJSON is one entry of td help --json.
type topicSummaryJSON struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// HelpOptions are td help's inputs, as parsed from the command line: at
// most one of Topic and Command is set, and neither asks for the list of
// commands and topics.
type HelpOptions struct {
	// Topic is the help topic to print.
	Topic string
	// Command is the command whose help to show.
	Command string
	// show writes urfave/cli's help of the named command, or of td itself
	// for "", to w: the one part of td help that needs the parsed
	// command tree.
	show func(command string, w io.Writer) error
}

// helpCommand replaces urfave/cli's help command: td help lists the
// commands and topics, td help COMMAND shows a command's help as before,
// and td help TOPIC prints a reference page embedded in the binary.
// runF, when not nil, replaces runHelp.
func (r *runner) helpCommand(runF func(*HelpOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "list the commands and help topics, or show one command or topic",
		ArgsUsage: "[COMMAND | TOPIC]",
		Description: `Without an argument, lists td's commands by group and the help topics.
With a command's name, shows its flags and examples (as td COMMAND --help
does). With a topic's name, prints that reference page. With --json, the
topic list is {"topics": [{"name", "summary"}]} and a topic is
{"name", "text"}, its text in markdown.

Examples:
   td help
   td help todo
   td help format
   td help --json`,
		Action: func(c *cli.Context) error {
			parent := c.Lineage()[1]
			o := &HelpOptions{show: func(command string, w io.Writer) error {
				saved := c.App.Writer
				c.App.Writer = w
				defer func() { c.App.Writer = saved }()
				if command == "" {
					return cli.ShowAppHelp(parent)
				}
				return cli.ShowCommandHelp(parent, command)
			}}
			if name := c.Args().First(); name != "" {
				t, ok, err := help.Lookup(name)
				if err != nil {
					return err
				}
				switch {
				case ok && c.NArg() > 1:
					return usagef("usage: td help [COMMAND | TOPIC]: %s is a topic and takes nothing after it", t.Name)
				case ok:
					o.Topic = t.Name
				case findCommand(c.App.Commands, name) == nil:
					return usagef("no help topic or command %q; the topics are %s, and td help lists the commands", name, strings.Join(help.Names(), ", "))
				default:
					o.Command = name
				}
			}
			if runF != nil {
				return runF(o)
			}
			return r.runHelp(o)
		},
	}
}

// runHelp prints the topic, the command's help, or the list of commands
// and topics.
func (r *runner) runHelp(o *HelpOptions) error {
	switch {
	case o.Topic != "":
		t, _, err := help.Lookup(o.Topic)
		if err != nil {
			return err
		}
		return r.st.export(func() any { return topicJSON{Name: t.Name, Text: t.Markdown} }, func() error {
			r.st.printf("%s", help.Render(t.Markdown))
			return nil
		})
	case o.Command != "":
		return r.st.export(func() any { return commandHelpJSON{name: o.Command, show: o.show} },
			func() error { return o.show(o.Command, r.st.out) })
	}
	ts, err := help.Topics()
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		out := struct {
			Topics []topicSummaryJSON `json:"topics"`
		}{Topics: []topicSummaryJSON{}}
		for _, t := range ts {
			out.Topics = append(out.Topics, topicSummaryJSON{Name: t.Name, Summary: t.Summary})
		}
		return out
	}, func() error { return o.show("", r.st.out) })
}

// commandHelpJSON is td help COMMAND --json: the command's help text as
// td COMMAND --help prints it, rendered when it is written.
type commandHelpJSON struct {
	name string
	show func(command string, w io.Writer) error
}

// WriteJSON renders the help and writes it as a topicJSON.
func (h commandHelpJSON) WriteJSON(w io.Writer) error {
	var text bytes.Buffer
	if err := h.show(h.name, &text); err != nil {
		return err
	}
	return (&streams{out: w}).emitJSON(topicJSON{Name: h.name, Text: text.String()})
}
