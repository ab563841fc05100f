// Package claims holds td's use cases on claims: a lease on an issue, kept
// as a git reference refs/td/claims/<issue> in the repository's common
// directory, so that every work tree of a clone sees every claim at once,
// and td sync exchanges them with a remote. td start and td send take a
// claim; td unstart, close and approve release it; td heartbeat renews it;
// td reclaim takes over one whose lease ended, audited. A claim follows
// its issue: once the issue's ledger in this work tree records the end of
// the work after the claim was taken (td unstart, close, approve or
// reopen, wherever it ran), the claim is stale: never shown, no bar to
// td start, released by td sync and td doctor --fix. The rules are
// policy's (MayClaim, MayReclaim, ReleasedBy, ClaimEnd, ClaimBars); this
// package reads and moves the references, with compare-and-swap, through
// repo/gitrepo.
//
// A store outside git has no claims: every function here then does
// nothing and reports nothing.
package claims

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// Prefix is where claims live among the repository's references.
const Prefix = "refs/td/claims/"

// RefName is the reference of an issue's claim.
func RefName(issue string) string { return Prefix + issue }

// casTries bounds how often a claim is re-read and retried when another
// process moved its reference between the read and the swap.
const casTries = 5

// Host is this machine's name, as claims record it: TD_HOST when set (a
// container's host name may change on every start), else the system's.
func Host(s *repo.Store) string {
	if h := strings.TrimSpace(s.Env("TD_HOST")); h != "" {
		return h
	}
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// Here is an empty set seen from the store's work tree and machine, for
// wording claims read elsewhere.
func Here(s *repo.Store) *Set {
	return &Set{Here: s.Root, HereHost: Host(s)}
}

// Set is the claims of a repository as listed at one moment: the
// references are listed at once, each record is read when first asked
// for, since a command shows the claims of a few issues among many.
type Set struct {
	g      *gitrepo.Repo
	store  *repo.Store       // for the record cache
	refs   map[string]string // issue -> commit
	claims map[string]*domain.Claim
	// full is true when refs is every claim (Load), not a few (LoadIssues):
	// only then may the record cache drop what the set does not name.
	full bool
	// committed reads every record from its commit, never the cache: for
	// td check, which judges what git holds, not a file in .git that
	// anything run in the checkout could have written.
	committed bool
	// Here and HereHost are the work tree and machine reading the set, so
	// that a holder elsewhere can be told from one here.
	Here, HereHost string
	// ended holds, for the claims Prefetch read, whether each is stale:
	// a list asks Get for every issue it prints, and some more than once.
	// Get only reads it, so that Get stays safe from many goroutines once
	// the claims are prefetched.
	ended map[string]bool
	// refused holds the records read whose lease runs beyond the
	// maximum, by issue (Refused).
	refused map[string]*domain.Claim
	mu      sync.Mutex
}

// Load lists the claims of the store's repository; a store outside git
// has an empty set.
func Load(s *repo.Store) (*Set, error) {
	cs := &Set{refs: map[string]string{}, claims: map[string]*domain.Claim{}, Here: s.Root, HereHost: Host(s)}
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return cs, err
	}
	cs.g, cs.store = g, s
	refs, err := g.Refs(Prefix)
	if err != nil {
		return cs, err
	}
	for _, r := range refs {
		cs.refs[strings.TrimPrefix(r.Name, Prefix)] = r.Hash
	}
	cs.full = true
	return cs, nil
}

// LoadAsync is Load on another goroutine, for a command that reads the
// issues meanwhile: listing the claims reads one reference file per claim,
// while reading the issues keeps one core of two busy once their files are
// stated. The returned function waits for the set; call it once. The
// repository is opened before the goroutine starts, so that the two only
// share it.
func LoadAsync(s *repo.Store) func() (*Set, error) {
	_, _ = s.GitRepo() // an error is Load's, again, below
	type loaded struct {
		cs  *Set
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		cs, err := Load(s)
		done <- loaded{cs, err}
	}()
	return func() (*Set, error) {
		l := <-done
		return l.cs, l.err
	}
}

// LoadCommitted is Load for a rule: each record is read from its commit,
// not from the record cache (cache.go).
func LoadCommitted(s *repo.Store) (*Set, error) {
	cs, err := Load(s)
	cs.committed = true
	return cs, err
}

// LoadIssues is Load for a command about a few issues (td show): it reads
// only their references, not the whole claims namespace, which holds one
// file per claim.
func LoadIssues(s *repo.Store, issues ...string) (*Set, error) {
	cs := &Set{refs: map[string]string{}, claims: map[string]*domain.Claim{}, Here: s.Root, HereHost: Host(s)}
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return cs, err
	}
	cs.g, cs.store = g, s
	for _, issue := range issues {
		h, err := g.ReadRef(RefName(issue))
		if err != nil {
			return cs, err
		}
		if h != "" {
			cs.refs[issue] = h
		}
	}
	return cs, nil
}

// Len is how many issues are claimed.
func (cs *Set) Len() int { return len(cs.refs) }

// Get returns the claim on issue that stands, nil when there is none, its
// record cannot be read, or it is stale: the issue's ledger in this work
// tree ended the work after it was taken (Ended).
func (cs *Set) Get(issue string) *domain.Claim {
	c := cs.Raw(issue)
	if c == nil {
		return nil
	}
	stale, known := cs.ended[issue]
	if !known {
		_, stale = cs.Ended(c)
	}
	if stale {
		return nil
	}
	return c
}

// Shown returns the claim to show beside an issue whose status in this
// work tree is status: Get, and none on a closed issue. A closed issue's
// work is over wherever it closed; a claim left on it (taken in a clone
// that had not merged the close, on a branch where it was still open) is
// nobody's work to show, and td sync releases it once the close reaches
// that clone. Every view of an issue (td show, td list, td board, the
// pages, the session context) asks Shown.
func (cs *Set) Shown(issue string, status domain.Status) *domain.Claim {
	if status == domain.StatusClosed {
		return nil
	}
	return cs.Get(issue)
}

// Ended returns the entry of the issue's ledger, in the store's work tree,
// that ended the work c was taken for (policy.ClaimEnd); ok is false for
// a claim that stands, or one whose ledger td cannot read whole.
func (cs *Set) Ended(c *domain.Claim) (policy.WorkEnd, bool) {
	if c == nil || cs.store == nil {
		return policy.WorkEnd{}, false
	}
	return Ended(cs.store, c)
}

// Ended is Set.Ended for a claim read alone.
func Ended(s *repo.Store, c *domain.Claim) (policy.WorkEnd, bool) {
	if c == nil {
		return policy.WorkEnd{}, false
	}
	return policy.ClaimEnd(c, workEnds(s, c.Issue))
}

// workEnds are the entries of the issue's ledger that end the work, as
// the ledger cache has them; none when the ledger cannot be read whole.
func workEnds(s *repo.Store, issue string) []policy.WorkEnd {
	f, err := s.LedgerFactsOf(issue)
	if err != nil {
		return nil
	}
	return f.WorkEnds
}

// Raw returns the claim on issue, stale or not: nil when there is none or
// its record cannot be read.
func (cs *Set) Raw(issue string) *domain.Claim {
	if c, ok := cs.claims[issue]; ok {
		return c
	}
	h, ok := cs.refs[issue]
	if !ok {
		return nil
	}
	c := cs.read([]string{h})[0]
	if c != nil && c.Issue != issue {
		c = nil // a record moved under another issue's name is nobody's claim
	}
	cs.claims[issue] = c
	return c
}

// Prefetch reads the claims of the issues given, those that have one, in
// one pass over the object store: a list of many issues asks Get for each.
func (cs *Set) Prefetch(issues []string) {
	var want, hashes []string
	for _, issue := range issues {
		if _, done := cs.claims[issue]; done {
			continue
		}
		if h, ok := cs.refs[issue]; ok {
			want, hashes = append(want, issue), append(hashes, h)
		}
	}
	for i, c := range cs.read(hashes) {
		if c != nil && c.Issue != want[i] {
			c = nil
		}
		cs.claims[want[i]] = c
		if c != nil {
			if cs.ended == nil {
				cs.ended = map[string]bool{}
			}
			_, cs.ended[want[i]] = cs.Ended(c)
		}
	}
}

// All returns every readable claim that stands, sorted by issue.
func (cs *Set) All() []*domain.Claim {
	return slices.DeleteFunc(cs.AllRaw(), func(c *domain.Claim) bool { return cs.Get(c.Issue) == nil })
}

// AllRaw returns every readable claim, stale or not, sorted by issue.
func (cs *Set) AllRaw() []*domain.Claim {
	issues := make([]string, 0, len(cs.refs))
	for issue := range cs.refs {
		issues = append(issues, issue)
	}
	cs.Prefetch(issues)
	var out []*domain.Claim
	for _, c := range cs.claims {
		if c != nil {
			out = append(out, c)
		}
	}
	sortClaims(out)
	return out
}

// Issues lists the claimed issues, sorted, whether or not their record
// can be read (Raw is nil for one that cannot).
func (cs *Set) Issues() []string {
	out := make([]string, 0, len(cs.refs))
	for issue := range cs.refs {
		out = append(out, issue)
	}
	sort.Strings(out)
	cs.Prefetch(out)
	return out
}

// fewRecords is how many records read takes from their commits alone
// (a variable for the tests of the cache).
var fewRecords = 8

// read decodes the claim records of the commits given, from the record
// cache where it has them (cache.go), else from the commits, which it
// then adds to the cache.
func (cs *Set) read(hashes []string) []*domain.Claim {
	out := make([]*domain.Claim, len(hashes))
	if cs.g == nil || len(hashes) == 0 {
		return out
	}
	// The cache is one file of every record: it pays for itself when many
	// are read (td ready, list, board), not for the one claim a harness
	// hook or td show asks about, whose loose commit is one small read.
	cached := !cs.committed && len(hashes) > fewRecords
	messages := map[string]string{}
	if cached {
		messages = cs.loadCache()
	}
	var missing []string
	var at []int
	for i, h := range hashes {
		if m, ok := messages[h]; ok {
			if cl, err := parseRecord(m); err == nil {
				out[i] = cs.bounded(cl)
				continue
			}
		}
		// Not cached, or cached as no record: the commit says for sure.
		missing, at = append(missing, h), append(at, i)
	}
	added := false
	var commits []*gitrepo.Commit
	if len(missing) > 0 {
		commits = cs.g.RecentCommits(missing)
	}
	for j, c := range commits {
		if c == nil {
			continue
		}
		if old, had := messages[c.Hash]; !had || old != c.Message {
			messages[c.Hash], added = c.Message, true
		}
		if cl, err := parseRecord(c.Message); err == nil {
			out[at[j]] = cs.bounded(cl)
		}
	}
	if cached && (added || cs.stale(messages)) {
		cs.saveCache(messages)
	}
	return out
}

// bounded is cl, or nil when its lease runs beyond the maximum (Beyond),
// kept as Refused says.
func (cs *Set) bounded(cl *domain.Claim) *domain.Claim {
	if !Beyond(cs.store, cl) {
		return cl
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.refused == nil {
		cs.refused = map[string]*domain.Claim{}
	}
	cs.refused[cl.Issue] = cl
	return nil
}

// Refused returns the claim on issue td read and refused because its
// lease runs beyond the maximum (Beyond), nil when none was.
func (cs *Set) Refused(issue string) *domain.Claim {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.refused[issue]
}

// Informs reports whether a claim tells a reader of this work tree
// something its issue file does not: it is held in another work tree or
// on another machine, or by a session the file names neither as its
// implementer nor as its assignee (known lists those two sessions). A
// claim that only repeats the file is not worth a line.
func (cs *Set) Informs(c *domain.Claim, known ...string) bool {
	if c == nil {
		return false
	}
	if c.Worktree != cs.Here || c.Host != cs.HereHost {
		return true
	}
	for _, se := range known {
		if se != "" && se == c.Session {
			return false
		}
	}
	return true
}

// Where says where a claim is held, from this work tree's point of view:
// "in the work tree /src/app-2", or "on bobs-laptop in /src/app" for
// another machine.
func (cs *Set) Where(c *domain.Claim) string {
	if c.Host != "" && c.Host != cs.HereHost {
		return "on " + c.Host + " in " + c.Worktree
	}
	if c.Worktree == cs.Here {
		return "in this work tree"
	}
	return "in the work tree " + c.Worktree
}

// Holder names who holds a claim, where and until when, for messages:
// "Bob <bob@example.com> (session ses_c81kd0zz) in the work tree
// /src/app-2, until 2026-11-21T12:00:00Z".
func (cs *Set) Holder(c *domain.Claim) string {
	return fmt.Sprintf("%s (session %s) %s, until %s", c.Actor.Name(), c.Session, cs.Where(c), stamp(c.Expires))
}

// current reads the claim reference of issue: its commit ("" for none)
// and the claim (nil for none, unreadable, or a lease beyond the
// maximum: Beyond).
func current(s *repo.Store, g *gitrepo.Repo, issue string) (string, *domain.Claim, error) {
	h, err := g.ReadRef(RefName(issue))
	if err != nil || h == "" {
		return "", nil, err
	}
	c := g.RecentCommits([]string{h})[0]
	if c == nil {
		return h, nil, nil
	}
	cl, err := parseRecord(c.Message)
	if err != nil || cl.Issue != issue || Beyond(s, cl) {
		return h, nil, nil
	}
	return h, cl, nil
}

// Beyond reports whether claim c's lease runs beyond the maximum the
// store's config gives (policy.LeaseBeyond): such a record is nobody's
// claim wherever td reads it.
func Beyond(s *repo.Store, c *domain.Claim) bool {
	return s != nil && policy.LeaseBeyond(c, s.Config.ClaimTTL(), s.Now())
}

// write records c and returns the commit naming it.
func write(g *gitrepo.Repo, c *domain.Claim) (string, error) {
	msg, err := formatRecord(c)
	if err != nil {
		return "", err
	}
	name, email := repo.SplitIdentity(c.Actor.Identity)
	author := gitrepo.Signature{Name: name, Email: email, When: c.Claimed}
	committer := gitrepo.Signature{Name: name, Email: email, When: c.Heartbeat}
	return g.WriteRecordCommit(msg, author, committer)
}

// TakeResult says what Take did.
type TakeResult struct {
	Claim   *domain.Claim
	Renewed bool   // the session held it already
	From    string // the session that handed it over, "" for none
	// Stale is a claim the issue's ledger had ended (Ended) that the new
	// one replaced, and End the entry that ended it; nil for none.
	Stale *domain.Claim
	End   policy.WorkEnd
	// Unpublished is true when the clone has a claims remote and the
	// claim is not on it: claims.publish is off, or the remote could not
	// be reached (then a warning said so). td start records it in its
	// ledger entry (Unpublished).
	Unpublished bool
	// previous is the reference's value before, for Undo; remote is the
	// claims remote the claim was published to ("" for none), and
	// remotePrevious the value it replaced there.
	previous, made         string
	remote, remotePrevious string
}

// Take claims issue for session se, or renews its claim, under the
// policy's MayClaim; from is the sender of td send, whose claim may pass
// to se (the zero value for none). verb is the command asking ("start"), for the refusal.
// A store outside git has no claims: the result is nil.
func Take(s *repo.Store, se *repo.Session, issue, verb string, from HandOver) (*TakeResult, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	cs := Here(s)
	pub, off := publisherFor(s, g)
	defer pub.done()
	for range casTries {
		old, held, err := current(s, g, issue)
		if err != nil {
			return nil, err
		}
		now := s.Now()
		res := &TakeResult{previous: old}
		ends := workEnds(s, issue)
		c := &domain.Claim{Issue: issue, Session: se.ID, Actor: se.Actor(), Worktree: s.Root, Host: cs.HereHost,
			Claimed: now, Heartbeat: now, Expires: now.Add(s.Config.ClaimTTL()), EndsSeen: policy.EndsAt(ends, now)}
		if end, stale := policy.ClaimEnd(held, ends); stale {
			// The work it was taken for has ended: it is nobody's.
			res.Stale, res.End, held = held, end, nil
		}
		v, err := decide(cs, held, from.ask(cs, held, se.ID), verb, issue, now)
		if err != nil {
			return nil, err
		}
		if v == policy.ClaimRenew {
			res.Renewed, c.Claimed, c.EndsSeen, c.Published = true, held.Claimed, held.EndsSeen, held.Published
			revive(c, held, now)
		} else if held != nil {
			res.From = held.Session
		}
		// The remote's claim, where the decision above did not cover it,
		// is judged as the local one was.
		judge := func(theirs *domain.Claim, _ string) error {
			if end, stale := policy.ClaimEnd(theirs, ends); stale {
				if res.Stale == nil {
					res.Stale, res.End = theirs, end
				}
				return nil
			}
			_, err := decide(cs, theirs, from.ask(cs, theirs, se.ID), verb, issue, now)
			return err
		}
		pr, err := put(s, g, pub, old, c, judge)
		if errors.Is(err, gitrepo.ErrRefMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		res.Claim, res.made, res.remote, res.remotePrevious = c, pr.made, pr.remote, pr.remotePrevious
		if pr.unpublished != nil {
			warnUnpublished(s, issue, pr.unpublished)
		}
		res.Unpublished = pr.unpublished != nil || off && c.Published.IsZero()
		return res, nil
	}
	return nil, repo.Errorf(repo.CodeConflict, "cannot %s %s: its claim kept changing while td tried to take it; try again", verb, issue)
}

// decide applies policy.MayClaim and words its refusals.
func decide(cs *Set, held *domain.Claim, ask policy.ClaimAsk, verb, issue string, now time.Time) (policy.ClaimVerdict, error) {
	v := policy.MayClaim(held, ask, now)
	switch v {
	case policy.ClaimHeld:
		return v, repo.Errorf(repo.CodeRefused, "cannot %s %s: it is claimed by %s; ask them to hand it back (td unstart %s), or wait for the lease to end and take it with td reclaim %s",
			verb, issue, cs.Holder(held), issue, issue)
	case policy.ClaimExpired:
		return v, repo.Errorf(repo.CodeRefused, "cannot %s %s: the claim of %s (session %s) %s ended at %s; td reclaim %s takes it over (audited), then td %s %s",
			verb, issue, held.Actor.Name(), held.Session, cs.Where(held), stamp(held.Expires), issue, verb, issue)
	}
	return v, nil
}

// HandOver is who passes a claim on with td send: the sending session,
// and whether it is an operator's.
type HandOver struct {
	Session  string
	Operator bool
}

// ask is the policy's question for a claimant given a hand-over.
func (h HandOver) ask(cs *Set, held *domain.Claim, session string) policy.ClaimAsk {
	a := policy.ClaimAsk{Session: session, HandOver: h.Session}
	a.OperatorHere = h.Operator && held != nil && held.Worktree == cs.Here && held.Host == cs.HereHost
	return a
}

// Check refuses, as Take would, a new session's claim on issue that the
// sender may not pass on: for a command to refuse before it creates
// anything. Where claims are published, the remote's claim is looked at
// too (and stored here when it refuses); a remote that cannot be reached
// is left for Take to warn about.
func Check(s *repo.Store, issue, verb string, from HandOver) error {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return err
	}
	old, held, err := current(s, g, issue)
	if err != nil {
		return err
	}
	if _, stale := Ended(s, held); stale {
		held = nil
	}
	cs := Here(s)
	if _, err := decide(cs, held, from.ask(cs, held, ""), verb, issue, s.Now()); err != nil {
		return err
	}
	pub, _ := publisherFor(s, g)
	if pub == nil {
		return nil
	}
	defer pub.done()
	h, theirs, lerr := pub.look(issue)
	if lerr != nil || h == old {
		return nil
	}
	if _, stale := Ended(s, theirs); stale {
		return nil
	}
	if _, err := decide(cs, theirs, from.ask(cs, theirs, ""), verb, issue, s.Now()); err != nil {
		if theirs != nil {
			_ = g.UpdateRef(RefName(issue), old, h)
		}
		return err
	}
	return nil
}

// Undo puts back the claim Take replaced, when the command that took it
// failed afterwards, here and on the claims remote; a claim moved since
// is left as it is.
func Undo(s *repo.Store, r *TakeResult) {
	if r == nil || r.made == "" {
		return
	}
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return
	}
	_ = g.UpdateRef(RefName(r.Claim.Issue), r.made, r.previous)
	if r.remote != "" {
		ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
		defer cancel()
		if g.Push(ctx, r.remote, []gitrepo.PushUpdate{{Ref: RefName(r.Claim.Issue), New: r.remotePrevious, Expect: r.made}}) == nil {
			cur, _ := g.ReadRef(TrackingPrefix + r.remote + "/" + r.Claim.Issue)
			_ = g.UpdateRef(TrackingPrefix+r.remote+"/"+r.Claim.Issue, cur, r.remotePrevious)
		}
	}
}

// Release ends the claim on issue when policy.ReleasedBy says the
// transition ending the work (by session, on the work of implementer)
// ends it, and returns the claim released; nil when there was none to
// release, which is not an error. Where claims are published, the claim
// is deleted on the claims remote too: the one released here, the
// session's or implementer's there, or one the issue's ledger here ended
// (the transition was just recorded); someone else's live claim there
// stays. A remote that cannot be reached is a warning.
func Release(s *repo.Store, issue, session, implementer string) (*domain.Claim, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	for range casTries {
		old, held, err := current(s, g, issue)
		if err != nil {
			return nil, err
		}
		if old != "" && held != nil && !policy.ReleasedBy(held, session, implementer) {
			old, held = "", nil // someone else's: not this transition's
		}
		if old != "" {
			// An unreadable record is nobody's: the transition ends it.
			err = g.UpdateRef(RefName(issue), old, "")
			if errors.Is(err, gitrepo.ErrRefMoved) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		publishRelease(s, g, issue, old, func(theirs *domain.Claim) bool {
			_, stale := Ended(s, theirs)
			return theirs == nil || stale || policy.ReleasedBy(theirs, session, implementer)
		})
		return held, nil
	}
	return nil, fmt.Errorf("release the claim on %s: it kept changing", issue)
}

// publishRelease deletes on the claims remote the claim released here
// (old; "" for none), or one mayDelete allows, and warns when the remote
// cannot be reached.
func publishRelease(s *repo.Store, g *gitrepo.Repo, issue, old string, mayDelete func(theirs *domain.Claim) bool) {
	pub, _ := publisherFor(s, g)
	if pub == nil {
		return
	}
	defer pub.done()
	var u *unreachable
	if err := pub.release(issue, old, mayDelete); errors.As(err, &u) {
		warnUnreleased(s, issue, u)
	} else if err != nil {
		s.Warnf("the claim on %s is released here; releasing it on %s failed: %v", issue, pub.remote, err)
	}
}

// revive makes a renewal of a claim whose lease had ended count from the
// renewal: claimed now, and published when put publishes it. Work another
// actor did while the lease was over was not barred then (ClaimBars), and
// CI, which judges by the claim as it is, must not find it barred by a
// lease renewed afterwards.
func revive(c, held *domain.Claim, now time.Time) {
	if held.Expired(now) {
		c.Claimed, c.Published = now, time.Time{}
	}
}

// CheckWork refuses work w on issue by session se (an operator's when
// operator is true) that the issue's claim bars, as td check's claims
// rule would refuse it in the pull request: one decision,
// policy.ClaimBars, on the claim git holds and this work tree's ledger.
// what names the work for the refusal ("submit td-k3x9qa").
//
// CI judges by the claims remote's claims, so where claims are published
// CheckWork asks the remote too, unless the claim here is the actor's own
// and published with a live lease (the remote holds it; a lease that ended
// may have been reclaimed there), or the work is an operator's
// criterion, which no claim bars: work under a claim another clone
// published is refused here as CI will refuse it, and that claim is kept
// here, as td sync would take it. The actor's own claim, taken while the
// remote could not be reached, is published first (publishHeld).
func CheckWork(s *repo.Store, se *repo.Session, issue string, w policy.Work, operator bool, what string) error {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return err
	}
	old, held, err := current(s, g, issue)
	if err != nil {
		return err
	}
	ends := workEnds(s, issue)
	now := s.Now()
	switch {
	case w == policy.WorkCriterion && operator:
	case held != nil && held.Actor == se.Actor() && (held.Published.IsZero() || !held.Expired(now)):
		// A live claim of the actor's, published, is the remote's too: only
		// a lease that ended can be reclaimed there, so that one is asked.
		if held.Published.IsZero() {
			held = publishHeld(s, g, issue, old, held)
		}
	default:
		if theirs := remoteClaim(s, g, issue, old, held); theirs != nil && policy.ClaimBars(theirs, ends, w, se.Actor(), operator, now) {
			held = theirs
		}
	}
	if held == nil || !policy.ClaimBars(held, ends, w, se.Actor(), operator, now) {
		return nil
	}
	who := "the holder does it, or hands the issue back with td unstart " + issue
	if w == policy.WorkCriterion {
		who = "the holder or an operator ticks it, or the holder hands the issue back with td unstart " + issue
	}
	return repo.Errorf(repo.CodeRefused, "cannot %s: %s is claimed by %s, and td check refuses work on it by %s; %s",
		what, issue, Here(s).Holder(held), se.Actor().Name(), who)
}

// remoteClaim is the claims remote's claim on issue, for CheckWork, when
// it differs from the one here (old, held); nil when there is none, it
// is stale by this work tree's ledger, claims are not published, or the
// remote cannot be reached (then the claim here decides, as before). A
// claim it finds is stored here where this clone holds none, or holds
// one that was published (the remote's is the newer word on it); an
// unpublished claim of this clone is left for td sync to settle.
func remoteClaim(s *repo.Store, g *gitrepo.Repo, issue, old string, held *domain.Claim) *domain.Claim {
	pub, _ := publisherFor(s, g)
	if pub == nil {
		return nil
	}
	defer pub.done()
	h, theirs, err := pub.look(issue)
	if err != nil || h == old || theirs == nil {
		return nil
	}
	if _, stale := Ended(s, theirs); stale {
		return nil
	}
	if held == nil || !held.Published.IsZero() {
		_ = g.UpdateRef(RefName(issue), old, h)
	}
	return theirs
}

// publishHeld publishes the claim held (from commit old), taken while the
// claims remote could not be reached, before its actor does more work
// under it: what td sync would do for it alone. Where the remote holds a
// claim that wins over it (one that stands, with a live lease or over an
// ended one), that claim is stored here instead, and CheckWork judges the
// work by it, as CI will. It returns the claim this clone holds after.
func publishHeld(s *repo.Store, g *gitrepo.Repo, issue, old string, held *domain.Claim) *domain.Claim {
	pub, _ := publisherFor(s, g)
	if pub == nil {
		return held
	}
	defer pub.done()
	now := s.Now()
	c := *held
	pr, err := put(s, g, pub, old, &c, func(theirs *domain.Claim, _ string) error {
		if _, stale := Ended(s, theirs); theirs == nil || stale || theirs.Session == held.Session ||
			theirs.Expired(now) && !held.Expired(now) {
			return nil
		}
		return errAdopted
	})
	if err == nil && pr.unpublished != nil {
		warnUnpublished(s, issue, pr.unpublished)
	}
	if _, cur, err := current(s, g, issue); err == nil && cur != nil {
		return cur
	}
	return held
}

// ReleaseStray ends the claim on an issue that is not in progress in
// this work tree, for td unstart: the holder's actor or an operator may
// (policy.MayReleaseStray). It returns the claim released, nil when there
// was none; a claim someone else holds is refused, naming them.
func ReleaseStray(s *repo.Store, se *repo.Session, issue string, operator bool, status domain.Status) (*domain.Claim, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	cs := Here(s)
	for range casTries {
		old, held, err := current(s, g, issue)
		if err != nil || old == "" {
			return nil, err
		}
		// An unreadable record is nobody's: anyone may clear it.
		if held != nil && !policy.MayReleaseStray(held, se.Actor(), operator) {
			return nil, repo.Errorf(repo.CodeRefused, "cannot unstart %s: it is %s, and it is claimed by %s; only the holder or an operator releases that claim (td unstart %s)",
				issue, status, cs.Holder(held), issue)
		}
		err = g.UpdateRef(RefName(issue), old, "")
		if errors.Is(err, gitrepo.ErrRefMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		publishRelease(s, g, issue, old, func(theirs *domain.Claim) bool {
			_, stale := Ended(s, theirs)
			return theirs == nil || stale || policy.MayReleaseStray(theirs, se.Actor(), operator)
		})
		if held == nil {
			held = &domain.Claim{Issue: issue}
		}
		return held, nil
	}
	return nil, fmt.Errorf("release the claim on %s: it kept changing", issue)
}

// Drop ends the claim on issue if its reference still names the record
// c was read from (the same session, taken and renewed at the same
// times), for td doctor --fix: a claim renewed or taken since is left. c
// nil drops a record that cannot be read, if it still cannot be.
func Drop(s *repo.Store, issue string, c *domain.Claim) (bool, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return false, err
	}
	old, held, err := current(s, g, issue)
	if err != nil || old == "" {
		return false, err
	}
	same := held == nil && c == nil ||
		held != nil && c != nil && held.Session == c.Session && held.Claimed.Equal(c.Claimed) && held.Heartbeat.Equal(c.Heartbeat)
	if !same {
		return false, nil
	}
	if err := g.UpdateRef(RefName(issue), old, ""); err != nil {
		if errors.Is(err, gitrepo.ErrRefMoved) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Heartbeat renews the leases the session holds: on the issues named, or
// on every issue it holds when none is. It returns the renewed claims; an
// issue named that the session does not hold is refused.
func Heartbeat(s *repo.Store, se *repo.Session, issues []string) ([]*domain.Claim, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "claims live in git, and %s is not in a git repository", s.Root)
	}
	if len(issues) == 0 {
		cs, err := Load(s)
		if err != nil {
			return nil, err
		}
		for _, c := range cs.All() {
			if c.Session == se.ID {
				issues = append(issues, c.Issue)
			}
		}
	}
	var out []*domain.Claim
	cs := Here(s)
	// A renewal goes to the claims remote too, so that another clone's td
	// reclaim, judged by the remote's claim, sees the lease run on; one
	// that cannot reach it stays here for td sync, unsaid: a harness
	// renews every quarter lease, and the claim there still stands.
	pub, _ := publisherFor(s, g)
	defer pub.done()
	for _, ref := range issues {
		issue, err := Resolve(s, g, ref)
		if err != nil {
			return out, err
		}
		var renewed *domain.Claim
		for range casTries {
			old, held, err := current(s, g, issue)
			if err != nil {
				return out, err
			}
			if held == nil || held.Session != se.ID {
				msg := fmt.Sprintf("cannot renew the claim on %s: this session (%s) does not hold it", issue, se.ID)
				if held != nil {
					msg += "; it is claimed by " + cs.Holder(held)
				} else {
					msg += "; td start " + issue + " claims it"
				}
				return out, repo.Errorf(repo.CodeRefused, "%s", msg)
			}
			if end, stale := Ended(s, held); stale {
				return out, repo.Errorf(repo.CodeRefused, "cannot renew the claim on %s: %s, after the claim was taken, so it covers nothing; td unstart %s releases it", issue, EndWords(issue, end), issue)
			}
			now := s.Now()
			c := *held
			revive(&c, held, now)
			c.Heartbeat, c.Expires = now, now.Add(s.Config.ClaimTTL())
			_, err = put(s, g, pub, old, &c, func(theirs *domain.Claim, _ string) error {
				switch _, stale := Ended(s, theirs); {
				case theirs == nil && !held.Published.IsZero():
					// Released there since it was published: a close or an
					// approval elsewhere, which td sync weighs with the
					// ledgers. The renewal must not put it back.
					return errLeave
				case theirs == nil || stale || theirs.Session == se.ID || theirs.Expired(now):
					return nil
				}
				// Another session's live claim there wins, as in td sync.
				return errAdopted
			})
			if errors.Is(err, gitrepo.ErrRefMoved) || errors.Is(err, errAdopted) {
				continue
			}
			if err != nil && !errors.Is(err, errLeave) {
				return out, err
			}
			renewed = &c
			break
		}
		if renewed == nil {
			return out, repo.Errorf(repo.CodeConflict, "the claim on %s kept changing while td renewed it; try again", issue)
		}
		out = append(out, renewed)
	}
	return out, nil
}

// RenewBound renews the session's claim on its bound issue when a
// quarter of the lease has passed since the last renewal, for harness
// hooks that run at every turn: the lease then stays live while the
// session works, at the cost of one reference read and one runtime write
// (and, with a claims remote, one push) per quarter lease (the runtime
// notes the lease's expiry as last read, so the hooks in between open no
// git). A session bound to nothing, or not holding
// its issue's claim, renews nothing; the claim renewed is returned.
func RenewBound(s *repo.Store, se *repo.Session) (*domain.Claim, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil || rt.BoundIssue == "" {
		return nil, err
	}
	now, ttl := s.Now(), s.Config.ClaimTTL()
	// Renewed once a quarter of the lease has passed, or sooner when the
	// lease was cut short (EndLease) and the conversation goes on. The
	// expiry the last hook read tells whether a renewal can be due
	// without opening git.
	due := func(expires time.Time) bool { return expires.Sub(now) <= ttl*3/4 }
	if !rt.ClaimExpires.IsZero() && !due(rt.ClaimExpires) {
		return nil, nil
	}
	issue := rt.BoundIssue
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	seen := time.Time{}
	defer func() {
		if seen.Equal(rt.ClaimExpires) {
			return
		}
		if err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
			rt.ClaimExpires = seen
			return nil
		}); err != nil {
			s.Warnf("could not note the claim's lease: %v", err)
		}
	}()
	_, held, err := current(s, g, issue)
	if err != nil || held == nil || held.Session != se.ID {
		return nil, err
	}
	if _, stale := Ended(s, held); stale {
		return nil, nil // the work ended: td sync releases it
	}
	if !due(held.Expires) {
		seen = held.Expires
		return nil, nil
	}
	renewed, err := Heartbeat(s, se, []string{issue})
	if err != nil || len(renewed) == 0 {
		return nil, err
	}
	seen = renewed[0].Expires
	return renewed[0], nil
}

// EndLease ends the lease of the session's claim on its bound issue at
// until (now, or a grace later) when it would run longer: the harness
// says the conversation ended (its session end, a turn ended by an API
// error), so the claim ends with it rather than when the lease runs out,
// and another session may td reclaim the issue then. The claim record
// stays, saying who held it and when it ended; the session renews it if
// its conversation comes back before anyone reclaims it. It returns the
// claim as it now stands, nil when the session holds none.
func EndLease(s *repo.Store, se *repo.Session, until time.Time) (*domain.Claim, error) {
	rt, err := s.Runtime(se.ID)
	if err != nil || rt.BoundIssue == "" {
		return nil, err
	}
	issue := rt.BoundIssue
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	for range casTries {
		old, held, err := current(s, g, issue)
		if err != nil || held == nil || held.Session != se.ID {
			return nil, err
		}
		if !held.Expires.After(until) {
			return held, nil
		}
		c := *held
		c.Expires = until
		made, err := write(g, &c)
		if err != nil {
			return nil, err
		}
		err = g.UpdateRef(RefName(issue), old, made)
		if errors.Is(err, gitrepo.ErrRefMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// The next event of the conversation, if any comes, renews it.
		if err := s.UpdateRuntime(se.ID, func(rt *repo.Runtime) error {
			rt.ClaimExpires = time.Time{}
			return nil
		}); err != nil {
			return nil, err
		}
		return &c, nil
	}
	return nil, repo.Errorf(repo.CodeConflict, "the claim on %s kept changing while td ended its lease", issue)
}

// ReclaimResult says what Reclaim took over.
type ReclaimResult struct {
	Claim    *domain.Claim // the session's claim now
	Previous *domain.Claim // the ended claim it replaced
	Security audit.SecurityEvent
}

// Reclaim takes over the claim on issue, whose lease ended, for session
// se, and records a security event naming the previous holder and the
// reason, which is required. A live lease, or none, is refused; so is a
// stale one (Ended), which covers no work to take over: td start takes
// the issue. within, when not nil, runs in the transaction that records
// the event, with the issue's ID (td reclaim makes the session the
// issue's implementer there): if either fails, the claim is put back.
func Reclaim(s *repo.Store, se *repo.Session, ref, reason string, within func(tx *repo.Tx, issue string) error) (*ReclaimResult, error) {
	if err := policy.MayMutate(se.Agent); err != nil {
		return nil, repo.Errorf(repo.CodeRefused, "subagent sessions cannot take claims; ask the root agent %s to run td reclaim %s", se.Agent.Root(), ref)
	}
	if err := policy.CheckText("reason", reason); err != nil {
		return nil, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, repo.Errorf(repo.CodeInvalid, "a reclaim needs a reason, for the security event: td reclaim %s --reason \"why you take it over\"", ref)
	}
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "claims live in git, and %s is not in a git repository", s.Root)
	}
	issue, err := Resolve(s, g, ref)
	if err != nil {
		return nil, err
	}
	cs := Here(s)
	for range casTries {
		old, held, err := current(s, g, issue)
		if err != nil {
			return nil, err
		}
		now := s.Now()
		ends := workEnds(s, issue)
		if end, stale := policy.ClaimEnd(held, ends); stale {
			return nil, repo.Errorf(repo.CodeRefused, "nothing to reclaim on %s: the claim of %s (session %s) %s is stale, since %s, after it was taken; td start %s takes the issue",
				issue, held.Actor.Name(), held.Session, cs.Where(held), EndWords(issue, end), issue)
		}
		switch policy.MayReclaim(held, se.ID, now) {
		case policy.ReclaimNothing:
			return nil, repo.Errorf(repo.CodeRefused, "nobody holds a claim on %s; td start %s claims it", issue, issue)
		case policy.ReclaimOwn:
			return nil, repo.Errorf(repo.CodeRefused, "this session holds the claim on %s already; td heartbeat %s renews it", issue, issue)
		case policy.ReclaimLive:
			return nil, repo.Errorf(repo.CodeRefused, "cannot reclaim %s: it is claimed by %s, and the lease has not ended; ask them to hand it back with td unstart %s", issue, cs.Holder(held), issue)
		}
		c := &domain.Claim{Issue: issue, Session: se.ID, Actor: se.Actor(), Worktree: s.Root, Host: cs.HereHost,
			Claimed: now, Heartbeat: now, Expires: now.Add(s.Config.ClaimTTL()), EndsSeen: policy.EndsAt(ends, now)}
		pub, _ := publisherFor(s, g)
		pr, err := put(s, g, pub, old, c, func(theirs *domain.Claim, _ string) error {
			// The remote must hold the ended lease reclaimed (there too),
			// a stale claim, or none; any other is decided on again here.
			if _, stale := Ended(s, theirs); theirs == nil || stale || theirs.Session == c.Session ||
				theirs.Session == held.Session && theirs.Expired(now) {
				return nil
			}
			return errAdopted
		})
		pub.done()
		if errors.Is(err, gitrepo.ErrRefMoved) || errors.Is(err, errAdopted) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if pr.unpublished != nil {
			warnUnpublished(s, issue, pr.unpublished)
		}
		made := pr.made
		res := &ReclaimResult{Claim: c, Previous: held}
		why := fmt.Sprintf("took over the claim of %s (session %s) %s, whose lease ended at %s: %s", held.Actor.Name(), held.Session, cs.Where(held), stamp(held.Expires), reason)
		err = s.Update(func(tx *repo.Tx) error {
			ev, err := s.AppendSecurityEvent(tx, se, issue, audit.KindClaimReclaimed, why)
			res.Security = ev
			if err != nil || within == nil {
				return err
			}
			return within(tx, issue)
		})
		if err != nil {
			// Unaudited, the take-over does not stand.
			Undo(s, &TakeResult{Claim: c, previous: old, made: made, remote: pr.remote, remotePrevious: pr.remotePrevious})
			return nil, err
		}
		return res, nil
	}
	return nil, repo.Errorf(repo.CodeConflict, "the claim on %s kept changing while td reclaimed it; try again", issue)
}

// EndWords says how the ledger ended the work on issue, for messages:
// "td-k3x9qa was approved at 2026-11-21T10:30:00Z".
func EndWords(issue string, e policy.WorkEnd) string {
	verb := map[string]string{audit.ActionUnstarted: "handed back (td unstart)", audit.ActionClosed: "closed", audit.ActionApproved: "approved", audit.ActionReopened: "reopened"}[e.Action]
	if verb == "" {
		verb = e.Action
	}
	return fmt.Sprintf("%s was %s at %s", issue, verb, stamp(e.TS))
}

// Resolve turns what the user typed into an issue ID: an issue of this
// work tree, as everywhere in td, or else the full ID of a claimed issue
// that exists only on another branch, in another work tree or clone.
func Resolve(s *repo.Store, g *gitrepo.Repo, ref string) (string, error) {
	issue, err := s.ResolveID(ref)
	if err == nil || g == nil {
		return issue, err
	}
	r, nerr := repo.NormalizeRef(ref)
	if nerr != nil || !repo.ValidIssueID(r) {
		return "", err
	}
	if h, rerr := g.ReadRef(RefName(r)); rerr == nil && h != "" {
		return r, nil
	}
	return "", err
}

// sortClaims orders claims by issue.
func sortClaims(cs []*domain.Claim) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Issue < cs[j].Issue })
}

// Live reports whether c is a lease still running at now.
func Live(c *domain.Claim, now time.Time) bool { return c != nil && !c.Expired(now) }
