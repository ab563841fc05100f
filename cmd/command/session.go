package command

import (
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
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

// sessionCommand is td session, the parent of the session verbs.
func (r *runner) sessionCommand() *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "start, list and inspect sessions (one agent conversation or one person at a terminal)",
		Description: `A session is who acts. td finds the current one from --session, then
$TD_SESSION, then this checkout's current session (td session use), then your
default operator session for this checkout, made on first use.`,
		Subcommands: []*cli.Command{
			r.sessionStartCommand(nil),
			r.sessionUseCommand(nil),
			r.sessionListCommand(nil),
			r.sessionShowCommand(nil),
			r.sessionBindCommand(nil),
			r.sessionUnbindCommand(nil),
			r.sessionCompactCommand(nil),
			r.sessionStopCommand(nil),
			r.sessionResumeCommand(nil),
			r.sessionErrorCommand(nil),
			r.sessionPruneCommand(nil),
		},
	}
}

// sessionIDText is a session's ID as people read it: the session a
// reading command stands in with before the first change has none yet.
func sessionIDText(se *repo.Session) string {
	if se.ID == "" {
		return "none yet (td starts one at your first change)"
	}
	return se.ID
}

// currentSession is the session td acts as here (session is --session),
// nil when there is none yet: it never makes the default session, as a
// reading command should not.
func (r *runner) currentSession(s *repo.Store, session string) (*repo.Session, error) {
	se, _, err := s.CurrentSession(session, false)
	return se, err
}

// currentID is the current session's ID, "" when there is none yet.
func (r *runner) currentID(s *repo.Store, session string) (string, error) {
	se, err := r.currentSession(s, session)
	if se == nil {
		return "", err
	}
	return se.ID, err
}

// sessionArg is the session a command's optional ID argument names, or
// the current one (session is --session). With create the operator's
// default session is made on first use; without, having no session yet is
// an error.
func (r *runner) sessionArg(s *repo.Store, session, id string, create bool) (*repo.Session, error) {
	if id != "" {
		return s.Session(id)
	}
	if create {
		_, se, err := r.openSession(session)
		return se, err
	}
	se, err := r.currentSession(s, session)
	if err == nil && se == nil {
		return nil, &repo.Error{Code: repo.CodeNotFound, Msg: "no current session yet; td session start makes one"}
	}
	return se, err
}

func (r *runner) printSession(s *repo.Store, se *repo.Session) {
	r.st.printf("session:  %s\n", sessionIDText(se))
	r.st.printf("name:     %s\n", se.Name)
	role := s.EffectiveRole(se)
	r.st.printf("role:     %s", role)
	if role == domain.RoleMember {
		r.st.printf(" (a person not listed in operators: approves under the review table, signs off no acceptance criteria)")
	}
	r.st.printf("\n")
	if se.Agent != "" {
		r.st.printf("agent:    %s\n", se.Agent)
	}
	r.st.printf("category: %s\n", se.Category)
	r.st.printf("author:   %s\n", se.Author)
	if se.ID != "" {
		r.st.printf("created:  %s\n", jsonTime(se.CreatedAt))
	}
	if se.Previous != "" {
		r.st.printf("previous: %s\n", se.Previous)
	}
	if bound, err := s.BoundIssue(se); err == nil && bound != "" {
		r.st.printf("bound:    %s\n", bound)
	}
}
