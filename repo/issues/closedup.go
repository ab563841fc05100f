package issues

import (
	"slices"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
)

// CloseDuplicate closes the issue ref with resolution duplicate and adds
// its duplicate_of link to other, in one locked update, under the same
// review policy as Close. The link is recorded in the ledger right after
// the close. An issue already duplicate_of other is just closed; one that
// is duplicate_of a third issue is refused.
func CloseDuplicate(s *repo.Store, se *repo.Session, ref, other string, o TransitionOptions) (*TransitionResult, error) {
	if err := o.checkText(); err != nil {
		return nil, err
	}
	if o.Resolution != "" && o.Resolution != "duplicate" {
		return nil, repo.Errorf(repo.CodeInvalid, "--duplicate-of closes with resolution duplicate, not %s; drop --resolution", o.Resolution)
	}
	to, err := s.ResolveID(other)
	if err != nil {
		return nil, err
	}
	return closeAs(s, se, ref, o, "duplicate", func(tx *repo.Tx, is *repo.Issue, res *TransitionResult) error {
		e := policy.Edge{From: is.ID, Kind: domain.DuplicateOf, To: to}
		l := domain.Link{Kind: e.Kind, To: e.To}
		if slices.Contains(is.Links, l) {
			return nil
		}
		if err := links.CheckLink(s, is, e); err != nil {
			return err
		}
		if err := is.SetLinks(append(slices.Clip(is.Links), l)); err != nil {
			return err
		}
		res.after = append(res.after, audit.Entry{Action: audit.ActionLinked, Details: links.LinkDetails(l)})
		return nil
	})
}
