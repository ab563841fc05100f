package policy

import (
	"fmt"

	"github.com/tdproject/td/policy/domain"
)

// CriteriaDecision is the answer to "may this issue be closed as done
// while acceptance criteria are open".
type CriteriaDecision struct {
	// Allowed is true when nothing is open, or an operator overrode it.
	Allowed bool
	// Override is true when the close goes through only by the operator's
	// override; the caller audits it as a security event.
	Override bool
	// Refusal explains a refusal in one line.
	Refusal string
}

// CloseWithOpenCriteria decides a close as done (td approve, or td close
// with resolution done) of issue while the criteria open are not done.
// The criteria are the operator's definition of done, so no session
// closes over them: an operator may drop a criterion that no longer
// applies, or override with a reason that is audited. A member or an
// agent is told to finish them and ask an operator to sign them off: a
// refusal shown to them names no way round.
// verb is "approve" or "close".
func CloseWithOpenCriteria(role domain.Role, issue, verb string, open []string, override string) CriteriaDecision {
	if len(open) == 0 {
		return CriteriaDecision{Allowed: true}
	}
	still := fmt.Sprintf("cannot %s %s: %d acceptance %s still open (%s)", verb, issue, len(open),
		domain.Plural(len(open), "criterion is", "criteria are"), domain.QuoteList(open))
	them := domain.Plural(len(open), "it", "them")
	if role != domain.RoleOperator && verb == "approve" {
		// In review: whoever asks, the work goes back to be finished.
		return CriteriaDecision{Refusal: fmt.Sprintf("%s; the implementer finishes %s (td reject %s --reason sends it back), and an operator signs off acceptance criteria", still, them, issue)}
	}
	if role != domain.RoleOperator {
		return CriteriaDecision{Refusal: fmt.Sprintf("%s; finish %s, then ask for sign-off with td review %s: an operator signs off acceptance criteria", still, them, issue)}
	}
	if override != "" {
		return CriteriaDecision{Allowed: true, Override: true}
	}
	return CriteriaDecision{Refusal: fmt.Sprintf(`%s; finish %s, drop what no longer applies (td todo drop --issue %s TEXT), or pass --override-open-criteria "why" (audited)`,
		still, them, issue)}
}
