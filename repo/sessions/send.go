package sessions

import (
	"fmt"
	"os"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/issues"
)

// SendOptions configures Send: the agent session to create.
type SendOptions struct {
	Agent    domain.AgentPath // agent path, "primary" when empty
	Name     string
	Category domain.Category
}

// SendResult is the new session, bound to its issue.
type SendResult struct {
	Session *repo.Session
	Bind    *BindResult
}

// Send starts an agent session bound to an issue: how an operator (or a
// root agent) hands work to a new agent. The sender's own session and
// binding are untouched.
func Send(s *repo.Store, from *repo.Session, ref string, o SendOptions) (*SendResult, error) {
	if err := policy.MayMutate(from.Agent); err != nil {
		return nil, err
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	if _, err := s.ReadIssueFile(id); err != nil {
		return nil, err
	}
	if o.Agent == "" {
		o.Agent = "primary"
	}
	if err := policy.MayMutate(o.Agent); err != nil {
		return nil, repo.Errorf(repo.CodeRefused, "td send starts a root agent bound to an issue; %s is a subagent path, and a subagent gets its task from its root agent and proposes todos with td todo propose", o.Agent)
	}
	// The new session takes the issue's claim: refused before the session
	// exists when someone else holds it, passed on when the sender does.
	hand := claims.HandOver{Session: from.ID, Operator: s.EffectiveRole(from) == domain.RoleOperator}
	if err := claims.Check(s, id, "send", hand); err != nil {
		return nil, err
	}
	if o.Name == "" {
		o.Name = sendName(s, o.Agent, id)
	}
	se, err := s.StartSession(repo.StartOptions{Name: o.Name, Agent: o.Agent, Category: o.Category, Previous: ""})
	if err != nil {
		return nil, err
	}
	if _, err := claims.Take(s, se, id, "send", hand); err != nil {
		return nil, err
	}
	b, err := Bind(s, se, id)
	if err != nil {
		return nil, err
	}
	return &SendResult{Session: se, Bind: b}, nil
}

// sendName is the name of a session td send starts without --name:
// "primary for td-qkm5oz", then "primary for td-qkm5oz #2" and so on, so
// that agents sent to different issues, or twice to one, read apart in td
// session list.
func sendName(s *repo.Store, agent domain.AgentPath, issue string) string {
	base := string(agent) + " for " + issue
	taken := map[string]bool{}
	list, _ := s.Sessions()
	for _, se := range list {
		taken[se.Name] = true
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s #%d", base, n)
	}
	return name
}

// Promote files an issue for the work the session is doing and binds the
// session to it. A session already bound files the new issue as a child
// of its old one, unless noParent.
func Promote(s *repo.Store, se *repo.Session, o issues.CreateOptions, noParent bool) (*repo.Issue, *BindResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, nil, err
	}
	if !noParent && o.Parent == "" {
		parent, err := Parent(s, se)
		if err != nil {
			return nil, nil, err
		}
		o.Parent = parent
	}
	is, err := issues.Create(s, se, o)
	if err != nil {
		return nil, nil, err
	}
	b, err := Bind(s, se, is.ID)
	if err != nil {
		return is, nil, err
	}
	return b.Issue, b, nil
}

// Parent is the issue a new issue the session files becomes a child of:
// the one it is bound to, when an agent's session is bound, or when a
// person bound it with td session bind (or td send, td promote). A
// person's td start binds the issue for its checklist alone, so what that
// person files next stands on its own. A binding to an issue this branch
// does not have is named in a warning, and the new issue gets no parent:
// filing work never fails for it.
func Parent(s *repo.Store, se *repo.Session) (string, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil {
		return "", err
	}
	if rt.BoundIssue == "" || !se.IsAgent() && rt.BoundBy == repo.BoundByStart {
		return "", nil
	}
	if !repo.ValidIssueID(rt.BoundIssue) {
		return "", nil
	}
	if _, err := os.Lstat(s.IssuePath(rt.BoundIssue)); err != nil {
		s.Warnf("session %s is bound to %s, which is not on this branch, so the new issue is filed without a parent (td session unbind drops the binding)", se.ID, rt.BoundIssue)
		return "", nil
	}
	return rt.BoundIssue, nil
}
