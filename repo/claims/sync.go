package claims

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tdproject/td/audit"
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
	// Refused are the claims whose lease runs beyond the maximum the
	// config gives (Beyond): nobody's claim, removed here and released on
	// the remote, never adopted nor pushed.
	Refused []RefusedClaim
	// Claims is how many claims this clone holds after the sync.
	Claims int
	// Branch is the remote's default branch whose ledgers judged the
	// claims besides this work tree's ("" when td could not read it).
	Branch string
	// Notes say what td sync could not do, and did without.
	Notes []string
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
	// OnBranch is true when only the remote's default branch recorded
	// the end (SyncResult.Branch): this work tree has not merged it yet.
	OnBranch bool
}

// RefusedClaim is a claim td sync refused for its lease (Beyond); Here
// and Remote say where it was, and is no more.
type RefusedClaim struct {
	Claim        *domain.Claim
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
	return len(r.Pushed)+len(r.Released)+len(r.Adopted)+len(r.Dropped)+len(r.Lost)+len(r.Stale)+len(r.Refused) > 0
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
		remote = RemoteOf(s, g)
	}
	if !gitrepo.ValidRemoteName(remote) || g.RemoteURL(remote) == "" {
		return nil, repo.Errorf(repo.CodeRefused, "no remote named %q in this repository's git config; name one with td sync REMOTE (git remote -v lists them, git remote add adds one)", remote)
	}
	tracking := TrackingPrefix + remote + "/"
	res := &SyncResult{Remote: remote}
	ctx := context.Background()
	var stampedAll []stampedClaim
	for try := 1; ; try++ {
		base, err := refMap(g, tracking)
		if err != nil {
			return nil, err
		}
		there, head, err := observe(ctx, g, remote, tracking, base)
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
		main := remoteBranch(ctx, g, remote, head, res)
		pushes, stamped, err := reconcile(s, g, local, there, base, main, res)
		stampedAll = append(stampedAll, stamped...)
		if err != nil {
			return nil, err
		}
		err = push(ctx, g, remote, tracking, pushes, res)
		var re *gitrepo.RemoteError
		if errors.As(err, &re) && try < syncTries {
			continue // the remote moved since the fetch: look again
		}
		if err != nil {
			// Not published after all: the records must not say they are.
			for _, st := range stampedAll {
				_ = g.UpdateRef(RefName(st.issue), st.stamped, st.was)
			}
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

// observe brings the tracking references up to what the remote holds,
// and says which branch is the remote's default and where it is. It
// lists the remote's claims and HEAD first (one round trip); only when
// one of the claims names a record this clone does not have does it
// fetch. A sync with nothing to do is then a listing and a comparison.
func observe(ctx context.Context, g *gitrepo.Repo, remote, tracking string, base map[string]string) (map[string]string, gitrepo.Ref, error) {
	l, err := g.LsRemoteHead(ctx, remote, Prefix, true)
	if err != nil {
		return nil, gitrepo.Ref{}, err
	}
	there := make(map[string]string, len(l.Refs))
	for _, r := range l.Refs {
		issue := strings.TrimPrefix(r.Name, Prefix)
		there[issue] = r.Hash
		if base[issue] != r.Hash && !g.HasObject(r.Hash) {
			if err := g.Fetch(ctx, remote, Prefix, tracking); err != nil {
				return nil, l.Head, err
			}
			m, err := refMap(g, tracking)
			return m, l.Head, err
		}
	}
	for issue, h := range there {
		if base[issue] != h {
			if err := g.UpdateRef(tracking+issue, base[issue], h); err != nil {
				return nil, l.Head, err
			}
		}
	}
	for issue, h := range base {
		if _, ok := there[issue]; !ok {
			if err := g.UpdateRef(tracking+issue, h, ""); err != nil {
				return nil, l.Head, err
			}
		}
	}
	return there, l.Head, nil
}

// branchEnds are the work ends the ledgers of the remote's default branch
// record, read issue by issue as td sync asks: a claim they end is stale
// as one this work tree's ledger ends, so that a close merged on the
// remote releases the claims of a clone that has not pulled it yet.
type branchEnds struct {
	g      *gitrepo.Repo
	name   string // "main", for messages
	commit string // "" when td could not read the branch
	ends   map[string][]policy.WorkEnd
}

// remoteBranch fetches the remote's default branch (head, as listed)
// when this clone lacks its commit, and returns the reader of its
// ledgers. A branch td cannot fetch is left out, with a note in res.
func remoteBranch(ctx context.Context, g *gitrepo.Repo, remote string, head gitrepo.Ref, res *SyncResult) *branchEnds {
	b := &branchEnds{g: g, name: strings.TrimPrefix(head.Name, "refs/heads/"), ends: map[string][]policy.WorkEnd{}}
	if head.Hash == "" {
		return b
	}
	if !g.HasObject(head.Hash) {
		// No destination: git moves refs/remotes/<remote>/<branch> as a
		// fetch of the branch would, and td keeps no reference of its own.
		if err := g.FetchRefs(ctx, remote, []string{head.Name}, []string{""}); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s's %s could not be fetched (%v); claims were judged by this work tree's ledgers alone", remote, b.name, err))
			return b
		}
	}
	b.commit = head.Hash
	res.Branch = b.name
	return b
}

// of returns the work ends the branch's ledger of issue records; none
// when td could not read the branch or the ledger.
func (b *branchEnds) of(issue string) []policy.WorkEnd {
	if b == nil || b.commit == "" || !repo.ValidIssueID(issue) {
		return nil
	}
	if e, ok := b.ends[issue]; ok {
		return e
	}
	var ends []policy.WorkEnd
	if data, err := b.g.FileAt(b.commit, repo.TodosDir+"/"+repo.HistoryDir+"/"+issue+".jsonl"); err == nil {
		entries, _ := audit.ParseLedger(data)
		ends = repo.DeriveLedgerFacts(entries).WorkEnds
	}
	b.ends[issue] = ends
	return ends
}

// ended is Ended with the remote branch's ends besides this work tree's:
// the claim's end, and whether only the remote branch recorded it. A
// claim on an issue closed on the remote branch is stale too, though it
// was taken after the close, in a clone where the issue was still open
// (the close had not reached it): its work is over wherever the close
// lands, unless this work tree reopened the issue after that close.
func (b *branchEnds) ended(s *repo.Store, c *domain.Claim) (end policy.WorkEnd, onBranch, ok bool) {
	if c == nil {
		return policy.WorkEnd{}, false, false
	}
	here := workEnds(s, c.Issue)
	if end, ok := policy.ClaimEnd(c, here); ok {
		return end, false, true
	}
	there := b.of(c.Issue)
	if len(there) == 0 {
		return policy.WorkEnd{}, false, false
	}
	all := append([]policy.WorkEnd(nil), here...)
	for _, e := range there {
		if !slices.Contains(all, e) {
			all = append(all, e) // a line both ledgers hold is one end
		}
	}
	if end, ok = policy.ClaimEnd(c, all); ok {
		return end, true, true
	}
	if last, closed := policy.ClosedBy(there); closed && !policy.ReopenedAfter(here, last) {
		return last, true, true
	}
	return policy.WorkEnd{}, false, false
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
	stale    *StaleClaim   // a stale claim released there
	refused  *RefusedClaim // a claim beyond the maximum lease released there
}

// reconcile compares every issue's claim here (local), there (the
// tracking references just fetched) and as last seen there (base),
// applies what the remote decided to the local references, and returns
// the pushes that publish what was decided here.
//
// local is updated to what this clone holds afterwards.
func reconcile(s *repo.Store, g *gitrepo.Repo, local, there, base map[string]string, main *branchEnds, res *SyncResult) ([]pending, []stampedClaim, error) {
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
		cl, err := parseRecord(c.Message)
		if err != nil || Beyond(s, cl) {
			return nil // nobody's claim: never adopted, never pushed
		}
		return cl
	}
	raw := func(h string) *domain.Claim {
		if h == "" {
			return nil
		}
		if c := g.Commits([]string{h})[0]; c != nil {
			if cl, err := parseRecord(c.Message); err == nil {
				return cl
			}
		}
		return nil
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
		// A lease beyond the maximum is nobody's claim (Beyond): removed
		// here, released there, never adopted nor pushed.
		if rawL, rawR := raw(l), raw(r); Beyond(s, rawL) || Beyond(s, rawR) {
			rc := RefusedClaim{Claim: rawR, Here: Beyond(s, rawL), Remote: Beyond(s, rawR)}
			if rc.Here {
				rc.Claim = rawL
				if err := setLocal(issue, l, ""); err != nil {
					return nil, nil, err
				}
				l = ""
			}
			switch {
			case rc.Remote && l != "":
				pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, New: l, Expect: r}, issue: issue, claim: read(l), refused: &rc})
			case rc.Remote:
				pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, Expect: r}, issue: issue, released: true, refused: &rc})
			case read(r) != nil:
				// The remote's claim stands: take it.
				if err := setLocal(issue, "", r); err != nil {
					return nil, nil, err
				}
				res.Refused = append(res.Refused, rc)
				res.Adopted = append(res.Adopted, read(r))
			default:
				res.Refused = append(res.Refused, rc)
			}
			continue
		}
		released := l == "" // released here before this sync
		// A claim the issue's ledger here ended is released wherever it
		// is, and never pushed: a close or approval anywhere ends the
		// claim everywhere once it is merged and synced. (A claim released
		// here and unchanged there is an ordinary release, below.)
		mine, theirs := read(l), read(r)
		endL, branchL, staleL := main.ended(s, mine)
		endR, branchR, staleR := main.ended(s, theirs)
		if staleL && l != r {
			if err := setLocal(issue, l, ""); err != nil {
				return nil, nil, err
			}
			res.addStale(StaleClaim{Claim: mine, End: endL, Here: true, OnBranch: branchL})
			l = ""
		}
		if staleR && !(released && r == b) {
			st := &StaleClaim{Claim: theirs, End: endR, Remote: true, OnBranch: branchR}
			if l == r {
				if err := setLocal(issue, l, ""); err != nil {
					return nil, nil, err
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
				return nil, nil, err
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
				return nil, nil, err
			}
			res.Dropped = append(res.Dropped, issue)
		case l == "" && r == b:
			// Released here, unchanged there.
			pushes = append(pushes, pending{update: gitrepo.PushUpdate{Ref: ref, Expect: r}, issue: issue, released: true})
		case l == "" || l == b:
			// Taken or renewed there, nothing here since.
			if err := setLocal(issue, l, r); err != nil {
				return nil, nil, err
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
				return nil, nil, err
			}
			if mine != nil && mine.Session == theirs.Session {
				res.Adopted = append(res.Adopted, theirs)
			} else {
				res.Lost = append(res.Lost, LostClaim{Mine: mine, Theirs: theirs})
			}
		}
	}
	stamped, err := stampPublished(s, g, pushes, setLocal)
	return pushes, stamped, err
}

// stampedClaim is a claim td sync rewrote to say when it was published,
// put back as it was if the push fails.
type stampedClaim struct{ issue, was, stamped string }

// stampPublished rewrites the records td sync is about to push that do
// not say when they were published (taken while the claims remote could
// not be reached, or with claims.publish off), so that the remote's
// record says when other clones could first see it: td check's claims
// rule bars work from then on (policy.ClaimBars).
func stampPublished(s *repo.Store, g *gitrepo.Repo, pushes []pending, setLocal func(issue, old, new string) error) ([]stampedClaim, error) {
	var out []stampedClaim
	for i, p := range pushes {
		if p.update.New == "" || p.claim == nil || !p.claim.Published.IsZero() {
			continue
		}
		c := *p.claim
		c.Published = s.Now()
		made, err := write(g, &c)
		if err != nil {
			return out, err
		}
		if err := setLocal(p.issue, p.update.New, made); err != nil {
			return out, err
		}
		out = append(out, stampedClaim{issue: p.issue, was: p.update.New, stamped: made})
		pushes[i].update.New, pushes[i].claim = made, &c
	}
	return out, nil
}

// push publishes the pending updates in one atomic push and, once it
// lands, records them as the remote's last-seen state.
func push(ctx context.Context, g *gitrepo.Repo, remote, tracking string, pushes []pending, res *SyncResult) error {
	if len(pushes) == 0 {
		return nil
	}
	updates := make([]gitrepo.PushUpdate, len(pushes))
	for i, p := range pushes {
		updates[i] = p.update
	}
	if err := g.Push(ctx, remote, updates); err != nil {
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
		if p.refused != nil {
			res.Refused = append(res.Refused, *p.refused)
		}
		switch {
		case p.released && p.stale == nil && p.refused == nil:
			res.Released = append(res.Released, p.issue)
		case p.claim != nil:
			res.Pushed = append(res.Pushed, p.claim)
		}
	}
	return nil
}
