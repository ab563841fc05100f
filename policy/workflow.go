package policy

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
)

// MayUnstart decides whether a session may hand an issue in progress back
// to open. Unstarting counts as implementation history, which blocks that
// session from ever approving the issue, so td does not let a bystander do
// it by accident: only the implementer or an operator may.
func MayUnstart(role domain.Role, session, implementer, issueID string) error {
	if role == domain.RoleOperator || implementer == "" || session == implementer {
		return nil
	}
	return refuse(fmt.Sprintf("only %s, which is working on %s, or an operator may hand it back with td unstart", implementer, issueOrThis(issueID)))
}

func issueOrThis(id string) string {
	if id == "" {
		return "this issue"
	}
	return id
}
