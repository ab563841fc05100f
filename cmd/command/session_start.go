package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

// SessionStartOptions are td session start's inputs, as parsed from the
// command line.
type SessionStartOptions struct {
	// Name is --name: a name to recognise the session by.
	Name string
	// Agent is --agent: the agent path, "" for an operator session.
	Agent domain.AgentPath
	// Category is --category: project or meta.
	Category domain.Category
	// Use is --use: also make it this checkout's current session.
	Use bool
	// Quiet is --quiet: print the export line alone.
	Quiet bool
	// Format is --format: text or markdown, for the context prefix.
	Format string
}

// sessionStartCommand is td session start. runF, when not nil, replaces
// runSessionStart.
func (r *runner) sessionStartCommand(runF func(*SessionStartOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "start",
		Usage: "start a session and print its id, an export line and its context prefix",
		Description: `Without --agent the session is an operator session (it counts as an operator
only while your git identity is listed in config operators). Starting a
session does not change who later commands in this checkout act as, unless
--use is given: hand the printed export line to the shell or harness that
will act as the session. After it comes the context prefix for the agent:
the language, who the session is and what it may change, the anchors and
the first thing to do (--quiet prints the export line alone).

Examples:
   td session start --agent primary --name "login work"
   eval "$(td session start --agent primary --quiet)"
   td session start --agent primary --category meta --use --format markdown`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: "a name to recognise the session by"},
			&cli.StringFlag{Name: "agent", Usage: "agent tree path (primary, primary.subagents.ui): an agent session"},
			&cli.StringFlag{Name: "category", Value: string(domain.CategoryProject), Usage: "project (user code) or meta (td's governance files)"},
			&cli.BoolFlag{Name: "use", Usage: "also make it this checkout's current session"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the export line"},
			formatFlag(),
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, "[--name N] [--agent PATH] [--category project|meta] [--use]"); err != nil {
				return err
			}
			o := &SessionStartOptions{Name: c.String("name"), Agent: domain.AgentPath(c.String("agent")), Category: domain.Category(c.String("category")),
				Use: c.Bool("use"), Quiet: c.Bool("quiet"), Format: c.String("format")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionStart(o)
		},
	}
}

// runSessionStart starts the session and prints its export line and its
// context prefix.
func (r *runner) runSessionStart(o *SessionStartOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	acting, err := sessions.Named(s, r.sessionFlag)
	if err != nil {
		return err
	}
	se, err := sessions.Start(s, acting, repo.StartOptions{Name: o.Name, Agent: o.Agent, Category: o.Category, Use: o.Use})
	if err != nil {
		return err
	}
	var ctx *sessions.Context
	if !o.Quiet || r.st.wantsJSON() {
		// The context prefix is made only when it is printed.
		if ctx, err = sessions.ContextOf(s, se, sessions.ContextStart); err != nil {
			return err
		}
	}
	return r.st.export(func() any {
		return struct {
			sessionJSON
			Context contextJSON `json:"context"`
		}{r.sessionJSON(s, se, s.CurrentID()), toContextJSON(ctx)}
	}, func() error {
		if o.Quiet {
			r.st.printf("export TD_SESSION=%s\n", se.ID)
			return nil
		}
		r.st.printf("Started %s (%s", se.ID, s.EffectiveRole(se))
		if se.Agent != "" {
			r.st.printf(" %s", se.Agent)
		}
		r.st.printf(", %s)\n", se.Category)
		r.st.printf("export TD_SESSION=%s\n\n", se.ID)
		return r.contextText(ctx, o.Format)
	})
}
