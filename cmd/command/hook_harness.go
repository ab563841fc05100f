package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/harness"
	"github.com/urfave/cli/v2"
)

// hookAdapter is what td hook <harness> needs of a harness adapter beside
// Claude Code's: its names, how it reads a payload into a call, and how it
// renders an outcome in the harness's own form.
type hookAdapter struct {
	name, title, file string
	read              func(io.Reader, string, harness.Conversation) (*harness.Call, error)
	render            func(*harness.Call, *harness.Outcome, string) ([]byte, error)
}

// HookHarnessOptions are the inputs of td hook codex, gemini, cursor,
// copilot and opencode: the event and flags td parsed itself. The payload
// comes on standard input.
type HookHarnessOptions struct {
	// Harness is the word after td hook.
	Harness string
	// Event is the event the hook's command names; "" takes the payload's.
	Event    string
	Agent    domain.AgentPath
	Category domain.Category
	// Format is formatMarkdown or formatText, for the context blocks.
	Format string
}

// harnessHookCommand builds td hook <harness>. Like td hook claude it
// parses its own flags and never fails the harness: any error is one line
// on standard error and exit status 0. runF, when not nil, replaces
// runHookHarness.
func (r *runner) harnessHookCommand(a hookAdapter, description string, runF func(*HookHarnessOptions) error) *cli.Command {
	return &cli.Command{
		Name:            a.name,
		Usage:           "handle one " + a.title + " hook event (its JSON payload on standard input)",
		ArgsUsage:       "[EVENT]",
		Description:     description,
		SkipFlagParsing: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Value: "primary", Usage: "the agent path of a session td starts for the harness"},
			&cli.StringFlag{Name: "category", Value: string(domain.CategoryProject), Usage: "project or meta, for a session td starts"},
			&cli.StringFlag{Name: "format", Value: formatMarkdown, Usage: "markdown or text, for the context blocks"},
		},
		Action: func(c *cli.Context) (err error) {
			defer func() {
				if p := recover(); p != nil {
					fmt.Fprintf(r.st.errOut, "td hook %s: internal error: %v; please report it\n", a.name, p)
				}
				err = nil
			}()
			h, perr := parseHookArgs(c.Args().Slice())
			if perr == nil && h.help {
				return cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name)
			}
			if perr == nil {
				o := &HookHarnessOptions{Harness: a.name, Event: h.event, Agent: domain.AgentPath(h.agent), Category: domain.Category(h.category), Format: h.format}
				if runF != nil {
					perr = runF(o)
				} else {
					perr = r.runHookHarness(a, o)
				}
			}
			if perr != nil {
				msg := strings.ReplaceAll(perr.Error(), "td hook claude --help", "td hook "+a.name+" --help")
				fmt.Fprintf(r.st.errOut, "td hook %s: %s\n", a.name, strings.ReplaceAll(msg, "\n", " "))
			}
			return nil
		},
	}
}

// runHookHarness reads the payload through the adapter, maps the event
// onto the session lifecycle and prints what the harness should read, in
// its own form; nothing is printed when it fails.
func (r *runner) runHookHarness(a hookAdapter, o *HookHarnessOptions) error {
	conv := harness.Conversation{Agent: o.Agent, Category: o.Category}
	call, err := a.read(r.st.in, o.Event, conv)
	if err != nil {
		return err
	}
	if !call.Acts() {
		return nil // nothing to record, and no repository to open
	}
	s, err := r.openHarnessStore(call.Cwd, a.file)
	if err != nil {
		return err
	}
	out, err := harness.Handle(s, call.Event)
	if err != nil {
		return err
	}
	var lines []string
	switch {
	case out.Context != nil:
		w := &blockWriter{md: o.Format == formatMarkdown}
		writeContext(w, out.Context)
		lines = append(lines, strings.TrimSuffix(w.String(), "\n"))
	case len(out.Stalls) > 0:
		for _, st := range out.Stalls {
			lines = append(lines, "td: stalled: "+st.Message)
		}
	}
	for _, n := range out.Notices {
		lines = append(lines, "td: "+n)
	}
	text := ""
	if len(lines) > 0 {
		text = strings.Join(lines, "\n")
		if out.Context != nil {
			text += "\n"
		}
	}
	b, err := a.render(call, out, text)
	if err != nil {
		return err
	}
	_, err = r.st.jsonOut().Write(b)
	return err
}
