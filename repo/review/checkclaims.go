package review

import (
	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/claims"
)

// RuleClaims: the work added since the base on an issue (starting it,
// submitting it, completing its criteria) was done by the actor holding
// the issue's claim, or while nobody's lease covered it. The claims are
// the repository's refs/td/claims/*: in CI, fetch them first (git fetch
// origin '+refs/td/claims/*:refs/td/claims/*', or td sync).
const RuleClaims = "claims"

// claimedWork are the ledger actions that do an issue's work, which a
// claim reserves: a reviewer's approve or reject is not the holder's to
// do, and not judged here.
var claimedWork = map[string]bool{
	audit.ActionStarted:            true,
	audit.ActionSubmitted:          true,
	audit.ActionCriterionCompleted: true,
}

// checkClaims flags work added since the base on an issue whose claim,
// when the work was recorded, belonged to another actor: a pull request
// that starts or changes an issue someone else holds.
func (c *checker) checkClaims() {
	cs, err := claims.LoadCommitted(c.s)
	if err != nil || cs.Len() == 0 {
		return
	}
	for _, id := range sortedKeys(c.issues) {
		cl := cs.Get(id)
		if cl == nil {
			continue
		}
		for _, e := range c.addedEntries(id) {
			if !claimedWork[e.Action] || e.TS.Before(cl.Claimed) || !e.TS.Before(cl.Expires) {
				continue
			}
			se := c.sessions[e.Session]
			if se == nil || se.Actor() == cl.Actor {
				continue
			}
			p := repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl"
			c.add(p, e.line, RuleClaims, "%s %s %s as %s while it was claimed by %s; the holder hands it back with td unstart %s, or the claim ends and td reclaim %s takes it over",
				e.Session, e.Action, id, se.Actor().Name(), cs.Holder(cl), id, id)
		}
	}
}
