package harness

import (
	"strings"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
)

// ApprovalDenial judges the td approve commands an agent's shell command
// runs (Approvals) as td approve will, acting as the agent's session se,
// and returns the sentence to deny the tool call with, or "" to let it
// run. The review policy decides (issues.ApprovalRefusal, the decision td
// approve and td check --base make): the guard adds only that the
// approval must be the agent's own. A shell without TD_SESSION acts as
// the checkout's session, a person's, so the command must name the
// agent's session, and may not unset TD_SESSION or name another.
func ApprovalDenial(s *repo.Store, se *repo.Session, asks []Approval) (string, error) {
	for _, a := range asks {
		refusal, err := issues.ApprovalRefusal(s, se, a.Ref, a.Reason)
		if err != nil {
			return "", err
		}
		if refusal != "" {
			return sentence(refusal), nil
		}
		if a.Session != se.ID {
			return ownSession(se, a), nil
		}
	}
	return "", nil
}

// ownSession tells an agent to approve as its own session, with the
// command that does.
func ownSession(se *repo.Session, a Approval) string {
	ref := a.Ref
	if ref == "" {
		ref = "ID"
	}
	cmd := "td approve " + ref + " --session " + se.ID
	if a.Reason != "" {
		cmd += " --reason " + shellQuote(a.Reason)
	}
	why := "td acts as the checkout's session, a person's, unless the command names yours"
	switch {
	case a.Session != "":
		why = "the command names " + a.Session + ", which is not your session"
	case a.Unsets:
		why = "the command clears TD_SESSION, so td would act as the checkout's session, a person's"
	}
	return "An agent approves only as its own session, and " + why + ": run " + cmd + "."
}

// sentence ends a refusal as a denial: one sentence, with its full stop.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// shellQuote quotes s for a shell, in single quotes unless it needs none.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'$`\\|&;<>()*?#~!{}[]") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
