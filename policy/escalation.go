package policy

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
)

// An agent never gains an operator's powers through td: it cannot start an
// operator session, make any session the checkout's, or switch to one. The
// acting session is the one --session or TD_SESSION names (how a harness
// runs an agent); a person at a terminal with neither set is not judged
// here. What td cannot stop locally, it says: an agent with a shell can
// unset TD_SESSION and act as the checkout's default session. The harness
// adapters deny that where the harness lets a hook block a tool call, and
// td check --base flags what it finds in the committed history.

// MayStartSession decides whether a command acting as actingID with role
// acting ("" when no session was named) may start a session: an operator
// one when operator, and make it the checkout's current session when use.
func MayStartSession(acting domain.Role, actingID string, operator, use bool) error {
	if acting != domain.RoleAgent {
		return nil
	}
	if operator {
		return refuse(fmt.Sprintf("agent session %s cannot start an operator session; an operator starts one at their own terminal, without TD_SESSION", actingID))
	}
	if use {
		return refuse(fmt.Sprintf("agent session %s cannot change which session this checkout acts as; start the session without --use and pass its export line on", actingID))
	}
	return nil
}

// MayUseSession decides whether a command acting as actingID with role
// acting may make another session the checkout's current session.
func MayUseSession(acting domain.Role, actingID string) error {
	if acting != domain.RoleAgent {
		return nil
	}
	return refuse(fmt.Sprintf("agent session %s cannot change which session this checkout acts as; only a person at their own terminal runs td session use", actingID))
}
