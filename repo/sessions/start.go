package sessions

import (
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// Named is the session a command was told to act as, by --session (flag)
// or TD_SESSION, as a harness runs an agent; nil when neither names one.
// The checkout's current and default sessions are a person's own.
func Named(s *repo.Store, flag string) (*repo.Session, error) {
	if flag == "" && s.Env("TD_SESSION") == "" {
		return nil, nil // not asking: resolving would name the default as the acting session
	}
	se, src, err := s.CurrentSession(flag, false)
	if err != nil || (src != repo.SourceFlag && src != repo.SourceEnv) {
		return nil, err
	}
	return se, nil
}

// Start starts a session as acting asks (nil when no session was named):
// an agent may start agent sessions but never an operator session, and
// never make one the checkout's.
func Start(s *repo.Store, acting *repo.Session, o repo.StartOptions) (*repo.Session, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	role, id := actingRole(s, acting)
	if err := policy.MayStartSession(role, id, o.Agent == "", o.Use); err != nil {
		return nil, err
	}
	return s.StartSession(o)
}

// Use makes the session id the checkout's current session, unless acting
// is an agent.
func Use(s *repo.Store, acting *repo.Session, id string) (*repo.Session, error) {
	if _, err := s.Session(id); err != nil {
		return nil, err
	}
	role, actingID := actingRole(s, acting)
	if err := policy.MayUseSession(role, actingID); err != nil {
		return nil, err
	}
	return s.UseSession(id)
}

// actingRole is the role and ID of the acting session, ("", "") for none.
func actingRole(s *repo.Store, acting *repo.Session) (domain.Role, string) {
	if acting == nil {
		return "", ""
	}
	return s.EffectiveRole(acting), acting.ID
}
