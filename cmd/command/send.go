package command

import (
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// sendCommand is td send: a new agent session bound to an issue, and the
// first message to start it with.
func (r *runner) sendCommand() *cli.Command {
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
			formatFlag,
		},
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "ID [-m TEXT]")
			if err != nil {
				return err
			}
			if err := checkFormat(c.String("format")); err != nil {
				return err
			}
			s, se, err := r.openActor(c)
			if err != nil {
				return err
			}
			res, err := sessions.Send(s, se, a[0], sessions.SendOptions{Agent: domain.AgentPath(c.String("agent")), Name: c.String("name"), Category: domain.Category(c.String("category"))})
			if err != nil {
				return err
			}
			ctx, err := sessions.ContextOf(s, res.Session, sessions.ContextStart)
			if err != nil {
				return err
			}
			w := &blockWriter{md: c.String("format") == formatMarkdown}
			if m := strings.TrimSpace(c.String("message")); m != "" {
				w.line("%s", m)
				w.line("")
			}
			writeContext(w, ctx)
			if r.st.json {
				return r.st.emitJSON(map[string]any{"session": r.sessionJSON(s, res.Session, ""), "issue": res.Bind.Issue.ID,
					"message": w.String(), "context": toContextJSON(ctx)})
			}
			r.st.printf("Started %s (agent %s, %s), bound to %s.\n", res.Session.ID, res.Session.Agent, res.Session.Category, res.Bind.Issue.ID)
			if res.Bind.Reassigned != "" {
				r.st.printf("The assignee was %s.\n", res.Bind.Reassigned)
			}
			r.st.printf("export TD_SESSION=%s\n\n--- first message ---\n%s", res.Session.ID, w.String())
			return nil
		},
	}
}

// promoteCommand is td promote: file the work in hand as an issue and bind
// to it.
func (r *runner) promoteCommand() *cli.Command {
	return &cli.Command{
		Name:      "promote",
		Usage:     "file the work you are doing as an issue and bind your session to it",
		ArgsUsage: "TITLE",
		Description: `For an agent that started without an issue: the new issue becomes its
checklist. A session already bound files the new issue as a child of the
old one (--no-parent to skip) and moves its binding.

Examples:
   td promote "Migrate the session store to Redis"
   td promote "Flaky login test" --type bug -d "Fails one run in ten."`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "task", Usage: "bug, feature, task, chore or epic"},
			&cli.StringFlag{Name: "priority", Aliases: []string{"p"}, Value: "P2", Usage: "P0 (most urgent) to P4"},
			&cli.StringSliceFlag{Name: "label", Aliases: []string{"l"}, Usage: "a label; repeat or separate with commas"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "the description (markdown)"},
			&cli.BoolFlag{Name: "no-parent", Usage: "do not link the new issue child_of the bound one"},
		},
		Action: func(c *cli.Context) error {
			a, s, se, err := r.actorArgs(c, 1, -1, "TITLE [flags]")
			if err != nil {
				return err
			}
			is, b, err := sessions.Promote(s, se, issues.CreateOptions{Title: strings.Join(a, " "), Type: c.String("type"),
				Priority: c.String("priority"), Labels: c.StringSlice("label"), Description: c.String("description")}, c.Bool("no-parent"))
			if err != nil {
				return err
			}
			if r.st.json {
				return r.st.emitJSON(map[string]any{"issue": toIssueJSON(is), "session": se.ID, "unbound": b.Previous})
			}
			r.st.printf("Created %s: %s%s\n", r.st.paint(ansiBold, is.ID), is.Title, parentNote(is))
			if b.Previous != "" {
				r.st.printf("Unbound %s from %s.\n", se.ID, b.Previous)
			}
			r.st.printf("Bound %s to %s: plan the work with td todo set.\n", se.ID, is.ID)
			return nil
		},
	}
}

// parentNote is " (child of ID)" for an issue filed under another.
func parentNote(is *repo.Issue) string {
	for _, l := range is.Links {
		if l.Kind == domain.ChildOf {
			return " (child of " + l.To + ")"
		}
	}
	return ""
}
