package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
	"github.com/urfave/cli/v2"
)

type sessionJSON struct {
	*repo.Session
	EffectiveRole domain.Role `json:"effective_role"`
	Current       bool        `json:"current"`
}

func (r *runner) sessionJSON(s *repo.Store, se *repo.Session, current string) sessionJSON {
	return sessionJSON{Session: se, EffectiveRole: s.EffectiveRole(se), Current: se.ID == current}
}

func (r *runner) sessionCommand() *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "start, list and inspect sessions (one agent conversation or one person at a terminal)",
		Description: `A session is who acts. td finds the current one from --session, then
$TD_SESSION, then this checkout's current session (td session use), then your
default operator session for this checkout, made on first use.`,
		Subcommands: append(append([]*cli.Command{
			{
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
					formatFlag,
				},
				Action: func(c *cli.Context) error {
					_, s, err := r.openArgs(c, 0, 0, "[--name N] [--agent PATH] [--category project|meta] [--use]")
					if err != nil {
						return err
					}
					if err := checkFormat(c.String("format")); err != nil {
						return err
					}
					se, err := s.StartSession(repo.StartOptions{Name: c.String("name"), Agent: domain.AgentPath(c.String("agent")), Category: domain.Category(c.String("category")), Use: c.Bool("use")})
					if err != nil {
						return err
					}
					if c.Bool("quiet") && !r.st.json {
						r.st.printf("export TD_SESSION=%s\n", se.ID)
						return nil
					}
					ctx, err := sessions.ContextOf(s, se, sessions.ContextStart)
					if err != nil {
						return err
					}
					if r.st.json {
						return r.st.emitJSON(struct {
							sessionJSON
							Context contextJSON `json:"context"`
						}{r.sessionJSON(s, se, s.CurrentID()), toContextJSON(ctx)})
					}
					r.st.printf("Started %s (%s", se.ID, s.EffectiveRole(se))
					if se.Agent != "" {
						r.st.printf(" %s", se.Agent)
					}
					r.st.printf(", %s)\n", se.Category)
					r.st.printf("export TD_SESSION=%s\n\n", se.ID)
					return r.printContext(ctx, c.String("format"))
				},
			},
			{
				Name:      "use",
				Usage:     "make a session this checkout's current session",
				ArgsUsage: "ID",
				Description: `Later td commands in this checkout act as ID, unless --session or
$TD_SESSION says otherwise. The pointer lives in .todos/local/ (not committed).

Examples:
   td session use ses_7hq2m4p1`,
				Action: func(c *cli.Context) error {
					a, s, err := r.openArgs(c, 1, 1, "ID")
					if err != nil {
						return err
					}
					se, err := s.UseSession(a[0])
					if err != nil {
						return err
					}
					if r.st.json {
						return r.st.emitJSON(r.sessionJSON(s, se, se.ID))
					}
					r.st.printf("This checkout now acts as %s (%s).\n", se.ID, se.Name)
					return nil
				},
			},
			{
				Name:  "list",
				Usage: "list the sessions, oldest first",
				Description: `One line a session: id, effective role, category, agent path, start time,
name. The session td acts as here is marked with *.

Examples:
   td session list
   td session list --json`,
				Action: func(c *cli.Context) error {
					_, s, err := r.openArgs(c, 0, 0, "")
					if err != nil {
						return err
					}
					list, errs := s.Sessions()
					for _, e := range errs {
						r.st.warnf("%v", e)
					}
					curID, err := r.currentID(c, s)
					if err != nil {
						return err
					}
					if r.st.json {
						out := make([]sessionJSON, len(list))
						for i, se := range list {
							out[i] = r.sessionJSON(s, se, curID)
						}
						return r.st.emitJSON(out)
					}
					if len(list) == 0 {
						r.st.printf("No sessions.\n")
						return nil
					}
					for _, se := range list {
						mark := " "
						if se.ID == curID {
							mark = "*"
						}
						agent := se.Agent
						if agent == "" {
							agent = "-"
						}
						r.st.printf("%s %s  %-8s  %-7s  %-20s  %s  %s\n", mark, se.ID, s.EffectiveRole(se), se.Category, agent, jsonTime(se.CreatedAt), se.Name)
					}
					return nil
				},
			},
			{
				Name:      "show",
				Usage:     "show a session (the current one by default)",
				ArgsUsage: "[ID]",
				Description: `Examples:
   td session show
   td session show ses_7hq2m4p1 --json`,
				Action: func(c *cli.Context) error {
					a, s, err := r.openArgs(c, 0, 1, "[ID]")
					if err != nil {
						return err
					}
					se, err := r.sessionArg(c, s, a, false)
					if err != nil {
						return err
					}
					curID, _ := r.currentID(c, s)
					if r.st.json {
						return r.st.emitJSON(r.sessionJSON(s, se, curID))
					}
					r.printSession(s, se)
					return nil
				},
			},
		}, r.bindCommands()...), r.lifecycleCommands()...),
	}
}

// currentSession is the session td acts as here, nil when there is none
// yet: it never makes the default session, as a reading command should not.
func (r *runner) currentSession(c *cli.Context, s *repo.Store) (*repo.Session, error) {
	se, _, err := s.CurrentSession(c.String("session"), false)
	return se, err
}

// currentID is the current session's ID, "" when there is none yet.
func (r *runner) currentID(c *cli.Context, s *repo.Store) (string, error) {
	se, err := r.currentSession(c, s)
	if se == nil {
		return "", err
	}
	return se.ID, err
}

// sessionArg is the session a command's optional [ID] argument names, or
// the current one. With create the operator's default session is made on
// first use; without, having no session yet is an error.
func (r *runner) sessionArg(c *cli.Context, s *repo.Store, a []string, create bool) (*repo.Session, error) {
	if len(a) == 1 {
		return s.Session(a[0])
	}
	if create {
		_, se, err := r.openActor(c)
		return se, err
	}
	se, err := r.currentSession(c, s)
	if err == nil && se == nil {
		return nil, &repo.Error{Code: repo.CodeNotFound, Msg: "no current session yet; td session start makes one"}
	}
	return se, err
}

func (r *runner) printSession(s *repo.Store, se *repo.Session) {
	r.st.printf("session:  %s\n", se.ID)
	r.st.printf("name:     %s\n", se.Name)
	r.st.printf("role:     %s", s.EffectiveRole(se))
	if se.Role == domain.RoleOperator && s.EffectiveRole(se) != domain.RoleOperator {
		r.st.printf(" (started as operator, but %s is not listed in operators)", se.Author)
	}
	r.st.printf("\n")
	if se.Agent != "" {
		r.st.printf("agent:    %s\n", se.Agent)
	}
	r.st.printf("category: %s\n", se.Category)
	r.st.printf("author:   %s\n", se.Author)
	r.st.printf("created:  %s\n", jsonTime(se.CreatedAt))
	if se.Previous != "" {
		r.st.printf("previous: %s\n", se.Previous)
	}
	if bound, err := s.BoundIssue(se); err == nil && bound != "" {
		r.st.printf("bound:    %s\n", bound)
	}
}

func (r *runner) whoamiCommand() *cli.Command {
	return &cli.Command{
		Name:  "whoami",
		Usage: "show the session td acts as here, and how it was found",
		Description: `Resolution order: --session, $TD_SESSION, the checkout's current session,
your default operator session (made on first use).

Examples:
   td whoami
   TD_SESSION=ses_7hq2m4p1 td whoami --json`,
		Action: func(c *cli.Context) error {
			_, s, err := r.openArgs(c, 0, 0, "")
			if err != nil {
				return err
			}
			se, src, err := s.CurrentSession(c.String("session"), true)
			if err != nil {
				return err
			}
			if r.st.json {
				return r.st.emitJSON(map[string]any{"session": r.sessionJSON(s, se, se.ID), "source": src})
			}
			r.printSession(s, se)
			r.st.printf("found by: %s\n", src)
			return nil
		},
	}
}
