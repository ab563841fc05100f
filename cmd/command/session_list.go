package command

import (
	"github.com/urfave/cli/v2"
)

// SessionListOptions are td session list's inputs, as parsed from the
// command line.
type SessionListOptions struct {
	// Session is --session: the session marked as the one td acts as.
	Session string
}

// sessionListCommand is td session list. runF, when not nil, replaces
// runSessionList.
func (r *runner) sessionListCommand(runF func(*SessionListOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the sessions, oldest first",
		Description: `One line a session: id, effective role, category, agent path, start time,
name. The session td acts as here is marked with *.

Examples:
   td session list
   td session list --json`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &SessionListOptions{Session: c.String("session")}
			if runF != nil {
				return runF(o)
			}
			return r.runSessionList(o)
		},
	}
}

// runSessionList lists the sessions, the current one marked.
func (r *runner) runSessionList(o *SessionListOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	list, errs := s.Sessions()
	for _, e := range errs {
		r.st.warnf("%v", e)
	}
	curID, err := r.currentID(s, o.Session)
	if err != nil {
		return err
	}
	return r.st.export(func() any {
		out := make([]sessionJSON, len(list))
		for i, se := range list {
			out[i] = r.sessionJSON(s, se, curID)
		}
		return out
	}, func() error {
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
			state, bound := "-", "-"
			if rt, err := s.Runtime(se.ID); err == nil {
				state, bound = orDash(rt.State), orDash(rt.BoundIssue)
			}
			r.st.printf("%s %s  %-8s  %-7s  %-20s  %-12s  %-9s  %s  %s\n", mark, se.ID, s.EffectiveRole(se), se.Category, agent, state, bound, jsonTime(se.CreatedAt), se.Name)
		}
		return nil
	})
}
