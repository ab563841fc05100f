package command

import (
	"fmt"

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
		Description: `A header, then one line a session: id, effective role, category, agent path, lifecycle
state, bound issue, last activity (its last td command, its stop or its
start), name. The session td acts as here is marked with *. State, binding
and activity are the clone's local state, shared by its work trees: td
session prune --idle removes it for sessions that went quiet. Sessions
started in another work tree of the clone, whose identity file this
branch does not have yet, are listed after the rest.

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
	for _, id := range s.SharedSessionIDs() {
		se, err := s.Session(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list = append(list, se)
	}
	for _, e := range errs {
		r.st.warnf("%v", e)
	}
	curID, err := r.currentID(s, o.Session)
	if err != nil {
		return err
	}
	type listedJSON struct {
		sessionJSON
		State      string `json:"state"`
		BoundIssue string `json:"bound_issue"`
		LastActive string `json:"last_active"`
	}
	return r.st.export(func() any {
		out := make([]listedJSON, len(list))
		for i, se := range list {
			out[i] = listedJSON{sessionJSON: r.sessionJSON(s, se, curID), LastActive: jsonTime(se.CreatedAt)}
			if rt, err := s.Runtime(se.ID); err == nil {
				out[i].State, out[i].BoundIssue, out[i].LastActive = rt.State, rt.BoundIssue, jsonTime(rt.LastActive(se))
			}
		}
		return out
	}, func() error {
		if len(list) == 0 {
			r.st.printf("No sessions.\n")
			return nil
		}
		r.st.printf("%s\n", r.st.paint(ansiDim, fmt.Sprintf("  %-12s  %-8s  %-7s  %-20s  %-12s  %-9s  %-20s  %s", "SESSION", "ROLE", "SCOPE", "AGENT", "STATE", "ISSUE", "LAST ACTIVE", "NAME")))
		for _, se := range list {
			mark := " "
			if se.ID == curID {
				mark = "*"
			}
			agent := se.Agent
			if agent == "" {
				agent = "-"
			}
			state, bound, last := "-", "-", se.CreatedAt
			if rt, err := s.Runtime(se.ID); err == nil {
				state, bound, last = orDash(rt.State), orDash(rt.BoundIssue), rt.LastActive(se)
			}
			r.st.printf("%s %s  %-8s  %-7s  %-20s  %-12s  %-9s  %s  %s\n", mark, se.ID, s.EffectiveRole(se), se.Category, agent, state, bound, jsonTime(last), se.Name)
		}
		return nil
	})
}
