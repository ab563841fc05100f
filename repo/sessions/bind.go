package sessions

import (
	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// BindResult says what a bind or unbind did.
type BindResult struct {
	Issue *repo.Issue
	// Previous is the issue the session was bound to before, if any.
	Previous string
	// Changed is false when the binding was already as asked.
	Changed bool
	// Reassigned names the assignee the bind replaced, if any.
	Reassigned string
}

// Bind points the session at one issue: the issue's todos become the
// session's checklist. The todos are untouched; the issue's assignee
// becomes session:<id>. Binding another issue first unbinds the old one.
func Bind(s *repo.Store, se *repo.Session, ref string) (*BindResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	id, err := s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	res := &BindResult{}
	err = s.Update(func(tx *repo.Tx) error {
		rt, err := s.Runtime(se.ID)
		if err != nil {
			return err
		}
		is, err := s.ReadIssueFile(id)
		if err != nil {
			return err
		}
		res.Issue = is
		if is.Status == domain.StatusClosed {
			s.Warnf("%s is closed; its todos are there to read, and td reopen %s makes it workable again", is.ID, is.ID)
		}
		if rt.BoundIssue != "" && rt.BoundIssue != id {
			res.Previous = rt.BoundIssue
			if err := releaseAssignee(s, tx, se, rt.BoundIssue); err != nil {
				return err
			}
		}
		want := "session:" + se.ID
		if rt.BoundIssue == id && is.Assignee == want {
			return nil
		}
		res.Changed = true
		if err := s.SetBinding(se.ID, id); err != nil {
			return err
		}
		details := map[string]any{}
		if is.Assignee != want {
			if is.Assignee != "" {
				res.Reassigned = is.Assignee
				details["assignee"] = map[string]any{"from": is.Assignee, "to": want}
			}
			if err := is.SetField("assignee", want); err != nil {
				return err
			}
			is.Assignee = want
		}
		return s.WriteIssue(tx, se, is, audit.ActionBound, details, "")
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Unbind drops the session's pointer to its issue. The issue's assignee is
// cleared only if it still names this session; the todos are untouched.
func Unbind(s *repo.Store, se *repo.Session) (*BindResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, err
	}
	res := &BindResult{}
	err := s.Update(func(tx *repo.Tx) error {
		rt, err := s.Runtime(se.ID)
		if err != nil {
			return err
		}
		if rt.BoundIssue == "" {
			return repo.Errorf(repo.CodeRefused, "session %s is not bound to an issue; td session bind ID binds one", se.ID)
		}
		res.Previous, res.Changed = rt.BoundIssue, true
		old := rt.BoundIssue
		if err := s.SetBinding(se.ID, ""); err != nil {
			return err
		}
		return releaseAssignee(s, tx, se, old)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// releaseAssignee records that the session left an issue, clearing the
// assignee when it still points at the session. An issue that has gone or
// cannot be read is left alone: the pointer is local and already moved.
func releaseAssignee(s *repo.Store, tx *repo.Tx, se *repo.Session, id string) error {
	is, err := s.ReadIssueFile(id)
	if err != nil {
		if repo.CodeOf(err) == repo.CodeNotFound {
			return nil
		}
		s.Warnf("%v; its assignee was left as it was", err)
		return nil
	}
	details := map[string]any{}
	if is.Assignee == "session:"+se.ID {
		if err := is.SetField("assignee", ""); err != nil {
			return err
		}
		details["assignee"] = map[string]any{"from": is.Assignee, "to": ""}
		is.Assignee = ""
	}
	return s.WriteIssue(tx, se, is, audit.ActionUnbound, details, "")
}
