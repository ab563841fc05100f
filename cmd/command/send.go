package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SendOptions are td send's inputs, as parsed from the command line.
type SendOptions struct {
	// Session is --session: the session sending ("" for the default).
	Session string
	// Issue is the issue the new session is bound to, as typed.
	Issue string
	// Message is -m: what to tell the agent first.
	Message string
	// Agent, Name and Category are the new session's.
	Agent    domain.AgentPath
	Name     string
	Category domain.Category
	// Format is --format: text or markdown, for the first message.
	Format string
	// Quiet is --quiet: print the export line alone, as td session start
	// --quiet does.
	Quiet bool
}

// sendCommand is td send: a new agent session bound to an issue, and the
// first message to start it with. runF, when not nil, replaces runSend.
func (r *runner) sendCommand(runF func(*SendOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "start an agent session bound to an issue and print its first message",
		ArgsUsage: "ID",
		Description: `Creates an agent session (--agent, default primary), binds it to ID, and
prints the export line for the harness that will run the agent, then the
seeded first message: your words (-m) followed by the session's context
prefix. Your own session and binding do not change.

Examples:
   td send td-k3x9qa -m "Start with the OAuth callback."
   td send k3x9 --agent primary --name login --format markdown
   td send td-k3x9qa --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "what to tell the agent first"},
			&cli.StringFlag{Name: "agent", Value: "primary", Usage: "the new session's agent path"},
			&cli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "a name for the new session"},
			&cli.StringFlag{Name: "category", Value: string(domain.CategoryProject), Usage: "project or meta"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the export line"},
			formatFlag(),
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID [-m TEXT]")
			if err != nil {
				return err
			}
			if err := checkFormat(c.String("format")); err != nil {
				return err
			}
			o := &SendOptions{Session: c.String("session"), Issue: a[0], Message: c.String("message"), Agent: domain.AgentPath(c.String("agent")),
				Name: c.String("name"), Category: domain.Category(c.String("category")), Format: c.String("format"), Quiet: c.Bool("quiet")}
			if runF != nil {
				return runF(o)
			}
			return r.runSend(o)
		},
	}
}

// runSend starts and binds the agent session and prints its export line
// and first message.
func (r *runner) runSend(o *SendOptions) error {
	s, se, err := r.openSession(o.Session)
	if err != nil {
		return err
	}
	res, err := sessions.Send(s, se, o.Issue, sessions.SendOptions{Agent: o.Agent, Name: o.Name, Category: o.Category})
	if err != nil {
		return err
	}
	ctx, err := sessions.ContextOf(s, res.Session, sessions.ContextStart)
	if err != nil {
		return err
	}
	w := &blockWriter{md: o.Format == formatMarkdown}
	if m := strings.TrimSpace(o.Message); m != "" {
		w.line("%s", m)
		w.line("")
	}
	writeContext(w, ctx)
	return r.st.export(func() any {
		return map[string]any{"session": r.sessionJSON(s, res.Session, ""), "issue": res.Bind.Issue.ID,
			"message": w.String(), "context": toContextJSON(ctx)}
	}, func() error {
		if o.Quiet {
			r.st.printf("export TD_SESSION=%s\n", res.Session.ID)
			return nil
		}
		r.st.printf("Started %s (agent %s, %s), bound to %s.\n", res.Session.ID, res.Session.Agent, res.Session.Category, res.Bind.Issue.ID)
		if res.Bind.Reassigned != "" {
			r.st.printf("The assignee was %s.\n", res.Bind.Reassigned)
		}
		r.st.printf("export TD_SESSION=%s\n\n--- first message ---\n%s", res.Session.ID, w.String())
		return nil
	})
}
