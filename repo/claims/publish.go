package claims

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// Publication. A claim taken in one clone used to reach the others only
// at the next td sync, so a second clone could start the same issue in
// between, and td check --base in CI, which reads the remote's claims,
// then refused a start td had accepted. So the commands that take a
// claim (td start, td send, td reclaim) put it on the clone's claims
// remote at once, with compare-and-swap, and refuse when the remote holds
// another session's claim that bars them, as they refuse a claim held in
// this clone; the commands that release one (td close, td approve, td
// unstart) delete it there the same way. It is td sync's exchange, for
// one claim:
//
//   - the push is under a lease (git push --force-with-lease) on the value
//     td last saw there (refs/td/remote-claims/<remote>/<issue>), when the
//     command's decision covered that value; else td first lists the
//     remote's reference (git ls-remote) and fetches its record;
//   - a push the remote rejects because its reference moved is looked at
//     again: the remote's claim is judged as a local one would be, and
//     either replaced under a lease on it, or the command is refused and
//     the remote's claim is stored here, so that td show names it;
//   - a remote that cannot be reached in publishTimeout, or at all, leaves
//     the claim local: the command succeeds, warns in one line, and the
//     next td sync publishes it. td start then records in its ledger entry
//     that its claim was not published ("claim": "unpublished"), which
//     td check's claims rule reads (policy.JudgeClaimedWork).
//
// The remote is claims.remote (default origin); claims.publish: false
// turns publication off, for a team that works offline and runs td sync.
// A clone without the remote publishes nothing and says nothing: there
// is nowhere to publish to.
//
// A claim's record says when it was published (domain.Claim.Published):
// td check's claims rule bars another actor's work only after that, the
// moment td start in another clone could have seen it.

// publishTimeout bounds one command's round trips to the claims remote.
const publishTimeout = 10 * time.Second

// publisher puts one command's claims on the claims remote.
type publisher struct {
	s        *repo.Store
	g        *gitrepo.Repo
	remote   string
	tracking string // TrackingPrefix + remote + "/"
	ctx      context.Context
	cancel   context.CancelFunc
}

// RemoteOf is the remote claims go to, for td sync without a name and for
// publication: claims.remote when the config names one; else origin,
// when the clone has it; else the current branch's upstream remote.
func RemoteOf(s *repo.Store, g *gitrepo.Repo) string {
	if s.Config.Claims.Remote != "" {
		return s.Config.Claims.Remote
	}
	if g.RemoteURL(repo.DefaultClaimsRemote) != "" {
		return repo.DefaultClaimsRemote
	}
	return DefaultRemote(g)
}

// Unpublished is what a claim's ledger entry records when td started the
// work without putting its claim on the claims remote (the "claim" key of
// the started entry's details).
const Unpublished = "unpublished"

// publisherFor returns the store's publisher; nil when this command
// publishes nothing. off is true when claims should be published and are
// not: publication is turned off, or claims.remote names a remote this
// clone lacks; a start then records its claim as unpublished. A clone
// with no claims remote at all (no origin, no claims.remote) has nowhere
// to publish and nobody to compare with. The caller calls done.
func publisherFor(s *repo.Store, g *gitrepo.Repo) (p *publisher, off bool) {
	remote := RemoteOf(s, g)
	if g.RemoteURL(remote) == "" {
		if s.Config.Claims.Remote != "" && s.Config.PublishClaims() {
			// The team publishes claims there; this clone cannot.
			s.Warnf("claims.remote names %s, which this clone does not have, so claims stay local; git remote add %s URL adds it, and td sync then publishes them", remote, remote)
			return nil, true
		}
		return nil, false
	}
	if !s.Config.PublishClaims() {
		return nil, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	return &publisher{s: s, g: g, remote: remote, tracking: TrackingPrefix + remote + "/", ctx: ctx, cancel: cancel}, false
}

func (p *publisher) done() {
	if p != nil {
		p.cancel()
	}
}

// seen is the value td last saw for issue's claim on the remote.
func (p *publisher) seen(issue string) string {
	h, _ := p.g.ReadRef(p.tracking + issue)
	return h
}

// track remembers what the remote holds for issue. It is only td's
// memory of the remote: failing to move it makes the next command look
// again.
func (p *publisher) track(issue, h string) {
	cur, err := p.g.ReadRef(p.tracking + issue)
	if err == nil && cur != h {
		_ = p.g.UpdateRef(p.tracking+issue, cur, h)
	}
}

// look lists the remote's reference for issue, fetches its record when
// this clone lacks it, remembers it, and returns it with its claim (nil
// for none, or a record td cannot read).
func (p *publisher) look(issue string) (string, *domain.Claim, error) {
	h, err := p.g.LsRemoteRef(p.ctx, p.remote, RefName(issue))
	if err != nil {
		return "", nil, err
	}
	if h != "" && !p.g.HasObject(h) {
		if err := p.g.FetchRefs(p.ctx, p.remote, []string{RefName(issue)}, []string{p.tracking + issue}); err != nil {
			return "", nil, err
		}
	}
	p.track(issue, h)
	return h, readClaim(p.s, p.g, issue, h), nil
}

// readClaim is the claim on issue recorded in commit h; nil for none, or
// a record td cannot read, which is nobody's claim.
func readClaim(s *repo.Store, g *gitrepo.Repo, issue, h string) *domain.Claim {
	if h == "" {
		return nil
	}
	c := g.RecentCommits([]string{h})[0]
	if c == nil {
		return nil
	}
	cl, err := parseRecord(c.Message)
	if err != nil || cl.Issue != issue || Beyond(s, cl) {
		return nil
	}
	return cl
}

// errAdopted is what a judge returns to have publish store the remote's
// claim here and report it, for the caller to decide again on it.
var errAdopted = errors.New("the remote's claim was taken here")

// errLeave is what a judge returns to leave the remote as it is and the
// claim here as written: td sync decides between them, with the ledgers.
var errLeave = errors.New("the remote's claim is left for td sync")

// unreachable is a remote that could not be reached, or git that could
// not run: the claim stays local.
type unreachable struct{ detail string }

func (u *unreachable) Error() string { return u.detail }

// asUnreachable words a failed round trip, nil for an error that is not
// about reaching the remote.
func (p *publisher) asUnreachable(err error) *unreachable {
	var re *gitrepo.RemoteError
	switch {
	case errors.As(err, &re):
		return &unreachable{detail: fmt.Sprintf("could not reach %s (%s)", p.remote, re.Detail)}
	case errors.Is(err, gitrepo.ErrNoGitProgram):
		return &unreachable{detail: "the git program is not installed"}
	}
	return nil
}

// publish puts made, the record this clone now holds for issue in place
// of local, on the remote. judge decides on a remote claim the local
// decision did not cover (theirs, from commit h; nil for none): nil lets
// made replace it, an error refuses. On a refusal the remote's claim is
// stored here in place of made, and the error returned. It returns the
// value made replaced there, for Undo, and *unreachable when the remote
// could not be reached.
func (p *publisher) publish(issue, local, made string, judge func(theirs *domain.Claim, h string) error) (string, error) {
	expect := p.seen(issue)
	covered := expect == local
	for range casTries {
		if !covered {
			if err := judge(readClaim(p.s, p.g, issue, expect), expect); err != nil {
				if errors.Is(err, errLeave) {
					return "", err
				}
				if expect != "" && p.g.HasObject(expect) {
					_ = p.g.UpdateRef(RefName(issue), made, expect)
				}
				return "", err
			}
		}
		err := p.g.Push(p.ctx, p.remote, []gitrepo.PushUpdate{{Ref: RefName(issue), New: made, Expect: expect}})
		if err == nil {
			p.track(issue, made)
			return expect, nil
		}
		var re *gitrepo.RemoteError
		if !errors.As(err, &re) || len(re.Rejected) == 0 {
			if u := p.asUnreachable(err); u != nil {
				return "", u
			}
			return "", err
		}
		// The remote holds something else than td last saw: look.
		h, _, err := p.look(issue)
		if err != nil {
			if u := p.asUnreachable(err); u != nil {
				return "", u
			}
			return "", err
		}
		expect, covered = h, h == local
	}
	return "", &unreachable{detail: fmt.Sprintf("the claim on %s kept changing on %s", issue, p.remote)}
}

// release deletes issue's claim on the remote, where it is old (the
// value this clone released; "" when it held none) or a claim mayDelete
// allows: one the work's end made stale, or the releasing session's. A
// claim someone else holds there stays. It returns *unreachable when the
// remote could not be reached.
func (p *publisher) release(issue, old string, mayDelete func(theirs *domain.Claim) bool) error {
	expect := old
	if mine := readClaim(p.s, p.g, issue, old); mine == nil || mine.Published.IsZero() {
		// Nothing published from here: the remote's claim, as td last
		// saw it, if it is this release's to end; when td saw none, the
		// remote is asked (a claim taken in another clone, which the
		// close or approval here ends).
		expect = p.seen(issue)
		if expect == "" {
			h, theirs, err := p.look(issue)
			if err != nil {
				// Nothing of this clone's is there: td sync judges what
				// is, by the ledgers, once it reaches the remote.
				return nil
			}
			if h == "" || !mayDelete(theirs) {
				return nil
			}
			expect = h
		} else if expect != old && !mayDelete(readClaim(p.s, p.g, issue, expect)) {
			return nil
		}
	}
	for range casTries {
		err := p.g.Push(p.ctx, p.remote, []gitrepo.PushUpdate{{Ref: RefName(issue), Expect: expect}})
		if err == nil {
			p.track(issue, "")
			return nil
		}
		var re *gitrepo.RemoteError
		if !errors.As(err, &re) || len(re.Rejected) == 0 {
			if u := p.asUnreachable(err); u != nil {
				return u
			}
			return err
		}
		h, theirs, err := p.look(issue)
		if err != nil {
			if u := p.asUnreachable(err); u != nil {
				return u
			}
			return err
		}
		if h == "" || !mayDelete(theirs) {
			return nil
		}
		expect = h
	}
	return nil
}

// warnUnpublished says, in one line, that a claim taken here is not on
// the claims remote yet.
func warnUnpublished(s *repo.Store, issue string, u *unreachable) {
	s.Warnf("the claim on %s is not published: %s; td sync publishes it, and until then CI may find another actor's claim on %s", issue, u.detail, issue)
}

// warnUnreleased says, in one line, that a claim released here is still
// on the claims remote.
func warnUnreleased(s *repo.Store, issue string, u *unreachable) {
	s.Warnf("the claim on %s is released here but not on the claims remote: %s; td sync releases it there", issue, u.detail)
}

// put is how a command takes a claim: it writes c, swaps it in for old
// here (gitrepo.ErrRefMoved, wrapped, when another process moved the
// reference meanwhile), then publishes it when pub is not nil. A claim
// not published before is stamped published first, and put back as
// unpublished (Unpublished in the result, warned about by the caller)
// when the remote cannot be reached; a renewal of a published claim that
// cannot reach it stays what the remote has, renewed here. judge decides
// on a remote claim the caller's decision did not cover (publish).
func put(s *repo.Store, g *gitrepo.Repo, pub *publisher, old string, c *domain.Claim, judge func(theirs *domain.Claim, h string) error) (putResult, error) {
	var r putResult
	stamped := pub != nil && c.Published.IsZero()
	if stamped {
		c.Published = s.Now() // so the record on the remote says when it got there
	}
	made, err := write(g, c)
	if err != nil {
		return r, err
	}
	if err := g.UpdateRef(RefName(c.Issue), old, made); err != nil {
		return r, err
	}
	r.made = made
	if pub == nil {
		return r, nil
	}
	prev, err := pub.publish(c.Issue, old, made, judge)
	var u *unreachable
	switch {
	case errors.As(err, &u):
		if !stamped {
			return r, nil
		}
		r.unpublished = u
		// Not there after all: the record must not say it is.
		c.Published = time.Time{}
		if local, werr := write(g, c); werr == nil && g.UpdateRef(RefName(c.Issue), made, local) == nil {
			r.made = local
		}
		return r, nil
	case err != nil:
		return r, err
	}
	r.remote, r.remotePrevious = pub.remote, prev
	return r, nil
}

// putResult says what put did.
type putResult struct {
	made string // the record this clone holds now
	// remote and remotePrevious are the claims remote the claim went to
	// and the value it replaced there, for Undo; "" when not published.
	remote, remotePrevious string
	// unpublished is why a claim not published before is still not.
	unpublished *unreachable
}
