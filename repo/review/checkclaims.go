package review

import (
	"fmt"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// RuleClaims: the work added since the base on an issue (starting it,
// submitting it, completing its criteria) was done by the actor holding
// the issue's claim, or while nobody's lease covered it. The claims are
// the repository's refs/td/claims/*: in CI, fetch them first (git fetch
// origin '+refs/td/claims/*:refs/td/claims/*', which the jobs td init
// --ci writes do, or td sync).
const RuleClaims = "claims"

// NoClaimRefs is the note td check gives when the claims rule had work to
// judge and no claim reference to judge it by: the rule then passes
// because it could not look, and says so.
const NoClaimRefs = "claims: no claim refs in this clone; fetch refs/td/claims/* to check them (git fetch origin '+refs/td/claims/*:refs/td/claims/*')"

// claimedWork are the ledger actions that do an issue's work, which a
// claim reserves: a reviewer's approve or reject is not the holder's to
// do, and not judged here.
var claimedWork = map[string]policy.Work{
	audit.ActionStarted:            policy.WorkStart,
	audit.ActionSubmitted:          policy.WorkSubmit,
	audit.ActionCriterionCompleted: policy.WorkCriterion,
}

// checkClaims flags work added since the base on an issue whose claim,
// when the work was recorded, belonged to another actor: a pull request
// that starts or changes an issue someone else holds. The decision is
// policy.JudgeClaimedWork, on policy.ClaimBars, the one td todo done and
// td review make when the work is done; a claim the issue's ledger at
// HEAD ended before the work (a close or approval merged from anywhere, a
// reopen) bars nothing, so that claim references left behind in one clone
// do not change the verdict.
//
// td start publishes its claim to the claims remote before it records
// the start, and refuses when the remote holds a claim that bars it, so
// a start td accepted is one this rule accepts. Two starts it must not
// fail, since the starter could not have seen the claim it ran into:
//
//   - a claim published after the work was recorded (the record's
//     published time; one taken offline is published by the td sync that
//     pushes it): ClaimBars counts a claim only from the second after it
//     was published, or, for a record that does not say, from the second
//     it was taken;
//   - a start whose own claim td could not publish (the remote could not
//     be reached, and td start warned; or claims.publish is off), which
//     its ledger entry records as "claim": "unpublished": it passes with
//     a note naming the claim it ran into. td sync then settles who holds
//     the issue, and the starter's later work is judged as anyone's.
func (c *checker) checkClaims() {
	work := map[string][]addedEntry{}
	for _, id := range sortedKeys(c.issues) {
		for _, e := range c.addedEntries(id) {
			if _, ok := claimedWork[e.Action]; ok {
				work[id] = append(work[id], e)
			}
		}
	}
	if len(work) == 0 {
		return
	}
	cs, err := claims.LoadCommitted(c.s)
	if err != nil {
		c.report.Notes = append(c.report.Notes, "claims: the claim refs could not be read ("+err.Error()+"); the rule did not run")
		return
	}
	if cs.Len() == 0 {
		c.report.Notes = append(c.report.Notes, NoClaimRefs)
		return
	}
	for _, id := range sortedKeys(work) {
		cl := cs.Raw(id)
		if cl == nil {
			continue
		}
		ends := repo.DeriveLedgerFacts(c.ledgers[id]).WorkEnds
		for _, e := range work[id] {
			se := c.sessions[e.Session]
			if se == nil {
				continue
			}
			unpublished := e.Details["claim"] == claims.Unpublished
			switch policy.JudgeClaimedWork(cl, ends, claimedWork[e.Action], se.Actor(), c.roleOf(e.Session) == domain.RoleOperator, e.TS, unpublished) {
			case policy.ClaimWorkBarred:
				c.add(c.ledgerPath(id), e.line, RuleClaims, "%s %s %s as %s while it was claimed by %s; the holder hands it back with td unstart %s, or the claim ends and td reclaim %s takes it over",
					e.Session, e.Action, id, se.Actor().Name(), cs.Holder(cl), id, id)
			case policy.ClaimWorkUnseen:
				c.report.Notes = append(c.report.Notes, fmt.Sprintf("claims: %s:%d: %s started %s as %s while it was claimed by %s; passed, since its own claim was not published (the claims remote could not be reached, or claims.publish is off) and it could not see that one; td sync settles who holds the issue",
					c.ledgerPath(id), e.line, e.Session, id, se.Actor().Name(), cs.Holder(cl)))
			}
		}
	}
}
