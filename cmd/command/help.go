package command

import (
	"bytes"
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

// helpCommand replaces urfave/cli's help command: td help lists the
// commands and topics, td help COMMAND shows a command's help as before,
// and td help TOPIC prints a reference page embedded in the binary.
func (r *runner) helpCommand() *cli.Command {
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
			name := c.Args().First()
			if name == "" {
				if r.st.json {
					return r.emitTopicList()
				}
				return cli.ShowAppHelp(parent)
			}
			t, ok, err := help.Lookup(name)
			if err != nil {
				return err
			}
			if ok {
				if c.NArg() > 1 {
					return usagef("usage: td help [COMMAND | TOPIC]: %s is a topic and takes nothing after it", t.Name)
				}
				if r.st.json {
					return r.st.emitJSON(topicJSON{Name: t.Name, Text: t.Markdown})
				}
				r.st.printf("%s", help.Render(t.Markdown))
				return nil
			}
			if findCommand(c.App.Commands, name) == nil {
				return usagef("no help topic or command %q; the topics are %s, and td help lists the commands", name, strings.Join(help.Names(), ", "))
			}
			if !r.st.json {
				return cli.ShowCommandHelp(parent, name)
			}
			var buf bytes.Buffer
			w := c.App.Writer
			c.App.Writer = &buf
			err = cli.ShowCommandHelp(parent, name)
			c.App.Writer = w
			if err != nil {
				return err
			}
			return r.st.emitJSON(topicJSON{Name: name, Text: buf.String()})
		},
	}
}

func (r *runner) emitTopicList() error {
	ts, err := help.Topics()
	if err != nil {
		return err
	}
	out := struct {
		Topics []topicSummaryJSON `json:"topics"`
	}{Topics: []topicSummaryJSON{}}
	for _, t := range ts {
		out.Topics = append(out.Topics, topicSummaryJSON{Name: t.Name, Summary: t.Summary})
	}
	return r.st.emitJSON(out)
}
