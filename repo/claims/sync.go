package claims

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// TrackingPrefix is where td keeps what it last saw of a remote's claims:
// refs/td/remote-claims/<remote>/<issue>. It is the base of the
// three-way comparison td sync makes: a claim that differs from it here
// changed here, one that differs from it there changed there.
const TrackingPrefix = "refs/td/remote-claims/"

// syncTries bounds how often td sync fetches again after a push was
// rejected because the remote moved meanwhile.
const syncTries = 3

// SyncResult says what Sync did, issue by issue.
type SyncResult struct {
	Remote string
	// Pushed are the claims of this clone the remote now has: taken or
	// renewed here.
	Pushed []*domain.Claim
	// Released are the issues whose claim was released here, and now on
	// the remote too.
	Released []string
	// Adopted are the remote's claims this clone now has: taken or renewed
	// there.
	Adopted []*domain.Claim
	// Dropped are the issues whose claim the remote released, gone here too.
	Dropped []string
	// Lost are the claims of this clone that the remote's beat: both sides
	// took the issue since the last sync, and the remote's live claim wins.
	Lost []LostClaim
	// Stale are the claims released because the issue's ledger here ended
	// the work after they were taken (Ended): here, on the remote, or both.
	// A stale claim is never pushed.
	Stale []StaleClaim
	// Claims is how many claims this clone holds after the sync.
	Claims int
}

// LostClaim is a claim of this clone that lost to the remote's.
type LostClaim struct {
	Mine, Theirs *domain.Claim
}

// StaleClaim is a claim td sync released because the work it was taken
// for had ended: End is the ledger entry that ended it; Here and Remote
// say where it was released.
type StaleClaim struct {
	Claim        *domain.Claim
	End          policy.WorkEnd
	Here, Remote bool
}

// addStale records a stale claim released; the same session's claim,
// renewed here and stale on both sides, is one claim released in both.
func (r *SyncResult) addStale(st StaleClaim) {
	for i, had := range r.Stale {
		if had.Claim.Issue == st.Claim.Issue && had.Claim.Session == st.Claim.Session {
			r.Stale[i].Here = had.Here || st.Here
			r.Stale[i].Remote = had.Remote || st.Remote
			return
		}
	}
	r.Stale = append(r.Stale, st)
}

// Changed reports whether the sync changed anything here or there.
func (r *SyncResult) Changed() bool {
	return len(r.Pushed)+len(r.Released)+len(r.Adopted)+len(r.Dropped)+len(r.Lost)+len(r.Stale) > 0
}

// DefaultRemote is the remote td sync uses when none is named: the
// current branch's upstream remote, else origin.
func DefaultRemote(g *gitrepo.Repo) string {
	if ref, err := g.Head(); err == nil {
		if b, ok := strings.CutPrefix(ref.Ref, "refs/heads/"); ok {
			if r := g.ConfigValue("branch", b, "remote"); gitrepo.ValidRemoteName(r) && g.RemoteURL(r) != "" {
				return r
			}
		}
	}
	return "origin"
}

// Sync exchanges claims with remote: it fetches the remote's claims, and
// compares each issue's claim here, there, and as last seen there. A side
// that alone changed wins; the remote's claim wins when both did, unless
// its lease has ended (then this clone's live claim is pushed). Pushes are
// atomic and under leases, so two clones that both took an issue cannot
// both publish it: the second push is rejected, td fetches again, and the
// second clone's claim is reported lost. A remote that cannot be reached
// changes nothing here.
func Sync(s *repo.Store, remote string) (*SyncResult, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "claims live in git, and %s is not in a git repository", s.Root)
	}
	if remote == "" {
		remote = DefaultRemote(g)
	}
	if !gitrepo.ValidRemoteName(remote) || g.RemoteURL(remote) == "" {
		return nil, repo.Errorf(repo.CodeRefused, "no remote named %q in this repository's git config; name one with td sync REMOTE (git remote -v lists them, git remote add adds one)", remote)
	}
	tracking := TrackingPrefix + remote + "/"
	res := &SyncResult{Remote: remote}
	for try := 1; ; try++ {
		base, err := refMap(g, tracking)
		if err != nil {
			return nil, err
		}
		there, err := observe(g, remote, tracking, base)
		if err != nil {
			var re *gitrepo.RemoteError
			if errors.As(err, &re) {
				return nil, repo.Errorf(repo.CodeConflict, "could not reach %s (%s); nothing changed here: your claims stay local until td sync reaches it", remote, re.Detail)
			}
			return nil, err
		}
		local, err := refMap(g, Prefix)
		if err != nil {
			return nil, err
		}
		pushes, err := reconcile(s, g, local, there, base, res)
		if err != nil {
			return nil, err
		}
		err = push(g, remote, tracking, pushes, res)
		var re *gitrepo.RemoteError
		if errors.As(err, &re) && try < syncTries {
			continue // the remote moved since the fetch: look again
		}
		if err != nil {
			if re != nil {
				return nil, repo.Errorf(repo.CodeConflict, "could not push claims to %s (%s); what td sync took from %s is here, what it would have pushed stays local until the next td sync", remote, re.Detail, remote)
			}
			return nil, err
		}
		res.Claims = len(local)
		break
	}
	return res, nil
}

// observe brings the tracking references up to what the remote holds.
// It lists the remote's claims first (one round trip); only when one of
// them names a record this clone does not have does it fetch. A sync
// with nothing to do is then a listing and a comparison.
func observe(g *gitrepo.Repo, remote, tracking string, base map[string]string) (map[string]string, error) {
	refs, err := g.LsRemote(remote, Prefix)
	if err != nil {
		return nil, err
	}
	there := make(map[string]string, len(refs))
	for _, r := range refs {
		issue := strings.TrimPrefix(r.Name, Prefix)
		there[issue] = r.Hash
		if base[issue] != r.Hash && !g.HasObject(r.Hash) {
			if err := g.Fetch(remote, Prefix, tracking); err != nil {
				return nil, err
			}
			return refMap(g, tracking)
		}
	}
	for issue, h := range there {
		if base[issue] != h {
			if err := g.UpdateRef(tracking+issue, base[issue], h); err != nil {
				return nil, err
			}
		}
	}
	for issue, h := range base {
		if _, ok := there[issue]; !ok {
			if err := g.UpdateRef(tracking+issue, h, ""); err != nil {
				return nil, err
			}
		}
	}
	return there, nil
}

// refMap lists the references under prefix by issue.
func refMap(g *gitrepo.Repo, prefix string) (map[string]string, error) {
	refs, err := g.Refs(prefix)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(refs))
	for _, r := range refs {
		m[strings.TrimPrefix(r.Name, prefix)] = r.Hash
	}
	return m, nil
}

// pending is a push td sync makes, with what it reports once it lands.
type pending struct {
	update   gitrepo.PushUpdate
	issue    string
	claim    *domain.Claim // pushed; nil for a release
	released bool
	stale    *StaleClaim // a stale claim released there
}

// reconcile compares every issue's claim here (local), there (the
// tracking references just fetched) and as last seen there (base),
// applies what the remote decided to the local references, and returns
// the pushes that publish what was decided here.
//
// local is updated to what this clone holds afterwards.
func reconcile(s *repo.Store, g *gitrepo.Repo, local, there, base map[string]string, res *SyncResult) ([]pending, error) {
	issues := map[string]bool{}
	for _, m := range []map[string]string{local, there, base} {
		for k := range m {
			issues[k] = true
		}
	}
	sorted := make([]string, 0, len(issues))
	for k := range issues {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	read := func(h string) *domain.Claim {
		if h == "" {
			return nil
		}
		c := g.Commits([]string{h})[0]
		if c == nil {
			return nil
		}
		cl, _ := parseRecord(c.Message)
		return cl
	}
	now := s.Now()
	var pushes []pending
	setLocal := func(issue, old, new string) error {
		err := g.UpdateRef(RefName(issue), old, new)
		if errors.Is(err, gitrepo.ErrRefMoved) {
			return repo.Errorf(repo.CodeConflict, "the claim on %s changed here while td sync ran; run td sync again", issue)
		}
		if err == nil && new == "" {
			delete(local, issue)
		} else if err == nil {
			local[issue] = new
		}
		return err
	}
	for _, issue := range sorted {
		l, r, b := local[issue], there[issue], base[issue]
		ref := RefName(issue)
		released := l == "" // released here before this sync
		// A claim the issue's ledger here ended is released wherever it
		// is, and never pushed: a close or approval anywhere ends the
		// claim everywhere once it is merged and synced. (A claim released
		// here and unchanged there is an ordinary release, below.)
		mine, theirs := read(l), read(r)
		endL, staleL := Ended(s, mine)
		endR, staleR := Ended(s, theirs)
		if staleL && l != r {
			if err := setLocal(issue, l, ""); err != nil {
				return nil, err
			}
			res.addStale(StaleClaim{Claim: mine, End: endL, Here: true})
			l = ""
		}
		if staleR && !(released && r == b) {
			st := &StaleClaim{Claim: theirs, End: endR, Remote: true}
			if l == r {
				if err := setLocal(issue, l, ""); err != nil {
					return nil, err
				}
				st.Here, l = true, ""
			}
			if l == "" {
				pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, Expect: r}, issue: issue, released: true, stale: st})
			} else {
				// This clone's claim stands where the remote's is stale.
				pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, New: l, Expect: r}, issue: issue, claim: mine, stale: st})
			}
			continue
		}
		if staleL && r == b && r != "" {
			// The remote's claim is the one this clone last saw: adopt it
			// rather than read the stale claim's removal as a release.
			if err := setLocal(issue, "", r); err != nil {
				return nil, err
			}
			res.Adopted = append(res.Adopted, theirs)
			continue
		}
		switch {
		case l == r:
			continue
		case r == "" && (b == "" || l != b):
			// Taken or renewed here since the remote last had it.
			pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, New: l}, issue: issue, claim: read(l)})
		case r == "":
			// Released there, unchanged here.
			if err := setLocal(issue, l, ""); err != nil {
				return nil, err
			}
			res.Dropped = append(res.Dropped, issue)
		case l == "" && r == b:
			// Released here, unchanged there.
			pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, Expect: r}, issue: issue, released: true})
		case l == "" || l == b:
			// Taken or renewed there, nothing here since.
			if err := setLocal(issue, l, r); err != nil {
				return nil, err
			}
			res.Adopted = append(res.Adopted, read(r))
		case r == b:
			// Renewed or taken here, unchanged there.
			pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, New: l, Expect: r}, issue: issue, claim: read(l)})
		default:
			// Both sides changed: the remote's live claim wins.
			mine, theirs := read(l), read(r)
			if theirs == nil || theirs.Expired(now) && mine != nil && !mine.Expired(now) {
				pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, New: l, Expect: r}, issue: issue, claim: mine})
				continue
			}
			if err := setLocal(issue, l, r); err != nil {
				return nil, err
			}
			if mine != nil && mine.Session == theirs.Session {
				res.Adopted = append(res.Adopted, theirs)
			} else {
				res.Lost = append(res.Lost, LostClaim{Mine: mine, Theirs: theirs})
			}
		}
	}
	return pushes, nil
}

// push publishes the pending updates in one atomic push and, once it
// lands, records them as the remote's last-seen state.
func push(g *gitrepo.Repo, remote, tracking string, pushes []pending, res *SyncResult) error {
	if len(pushes) == 0 {
		return nil
	}
	updates := make([]gitrepo.PushUpdate, len(pushes))
	for i, p := range pushes {
		updates[i] = p.update
	}
	if err := g.Push(remote, updates); err != nil {
		return err
	}
	for _, p := range pushes {
		// The tracking reference is only td's memory of the remote: one
		// that cannot be moved makes the next sync compare again.
		cur, _ := g.ReadRef(tracking + p.issue)
		if err := g.UpdateRef(tracking+p.issue, cur, p.update.New); err != nil {
			return fmt.Errorf("remember what %s holds for %s: %w", remote, p.issue, err)
		}
		if p.stale != nil {
			res.addStale(*p.stale)
		}
		switch {
		case p.released && p.stale == nil:
			res.Released = append(res.Released, p.issue)
		case p.claim != nil:
			res.Pushed = append(res.Pushed, p.claim)
		}
	}
	return nil
}
