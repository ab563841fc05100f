package claims

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, c := range []domain.Claim{
		{Issue: "td-aaaaaa", Session: "ses_aaaaaaaa", Actor: domain.Actor{Identity: "Op <op@example.com>"}, Worktree: "/src/app", Host: "laptop",
			Claimed: at, Heartbeat: at.Add(time.Minute), Expires: at.Add(2 * time.Hour), EndsSeen: 0},
		{Issue: "td-bbbbbb", Session: "ses_bbbbbbbb", Actor: domain.Actor{Identity: "Op <op@example.com>", Agent: "primary"}, Worktree: "/src/app 2",
			Claimed: at, Heartbeat: at, Expires: at, EndsSeen: 2},
		// A record written before td kept ends-seen.
		{Issue: "td-cccccc", Session: "ses_cccccccc", Actor: domain.Actor{Identity: "Op <op@example.com>"}, Worktree: "/src/app",
			Claimed: at, Heartbeat: at, Expires: at, EndsSeen: -1},
		// A claim published to the claims remote a minute after it was taken.
		{Issue: "td-dddddd", Session: "ses_dddddddd", Actor: domain.Actor{Identity: "Op <op@example.com>"}, Worktree: "/src/app",
			Claimed: at, Heartbeat: at, Expires: at.Add(time.Hour), EndsSeen: 0, Published: at.Add(time.Minute)},
	} {
		msg, err := formatRecord(&c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseRecord(msg)
		if err != nil {
			t.Fatalf("parse %q: %v", msg, err)
		}
		if *got != c {
			t.Errorf("round trip of %+v gave %+v", c, *got)
		}
	}
	bad := domain.Claim{Issue: "td-aaaaaa", Worktree: "/a\nb"}
	if _, err := formatRecord(&bad); err == nil {
		t.Error("a worktree with a line break was written")
	}
	for _, msg := range []string{
		"",
		"td claim x\n\ntd-claim: 2\nissue: x\nsession: s\nexpires: 2026-11-21T10:00:00Z\n",
		"td claim x\n\ntd-claim: 1\nissue: x\nexpires: 2026-11-21T10:00:00Z\n",
		"td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: soon\n",
		"td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: 2026-11-21T10:00:00Z\nends-seen: -1\n",
		"td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: 2026-11-21T10:00:00Z\nends-seen: two\n",
		"td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: 2026-11-21T10:00:00Z\npublished: later\n",
		"other commit\n\ntd-claim: 1\n",
	} {
		if _, err := parseRecord(msg); err == nil {
			t.Errorf("parseRecord(%q) succeeded", msg)
		}
	}
}

// clockStore opens the git store's directory again with a clock the test
// moves.
func clockStore(t *testing.T, g *repotest.GitStore, now *time.Time) *repo.Store {
	t.Helper()
	s, err := repo.Open(g.Dir, repo.Options{Now: func() time.Time { return *now }, Env: func(k string) string {
		switch k {
		case "GIT_AUTHOR_NAME":
			return "Op"
		case "GIT_AUTHOR_EMAIL":
			return "op@example.com"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTakeReleaseHeartbeatReclaim(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	a, err := s.StartSession(repo.StartOptions{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.StartSession(repo.StartOptions{Name: "b", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	const issue = "td-aaaaaa"
	ttl := s.Config.ClaimTTL()

	res, err := Take(s, a, issue, "start", HandOver{})
	if err != nil || res.Renewed || !res.Claim.Expires.Equal(now.Add(ttl)) {
		t.Fatalf("Take = %+v, %v", res, err)
	}
	// The same session again renews; another is refused, naming the holder.
	now = now.Add(time.Hour)
	if res, err = Take(s, a, issue, "start", HandOver{}); err != nil || !res.Renewed || !res.Claim.Claimed.Equal(repotest.Clock) {
		t.Fatalf("renewing Take = %+v, %v", res, err)
	}
	_, err = Take(s, b, issue, "start", HandOver{})
	want := "cannot start td-aaaaaa: it is claimed by Op <op@example.com> (session " + a.ID + ") in this work tree, until 2026-11-21T13:00:00Z;"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Take by another session: %v\nwant %s...", err, want)
	}
	// The holder hands it over with td send; a non-holder cannot.
	if _, err := Take(s, b, issue, "send", HandOver{Session: "ses_zzzzzzzz"}); err == nil {
		t.Fatal("a non-holder handed the claim over")
	}
	if res, err = Take(s, b, issue, "send", HandOver{Session: a.ID}); err != nil || res.From != a.ID {
		t.Fatalf("hand over = %+v, %v", res, err)
	}
	// Release by a session that neither holds nor implemented it does
	// nothing; by the implementer's reviewer it releases.
	if c, err := Release(s, issue, a.ID, a.ID); c != nil || err != nil {
		t.Fatalf("Release by a non-holder = %v, %v", c, err)
	}
	// Heartbeat renews only what the session holds.
	now = now.Add(30 * time.Minute)
	hb, err := Heartbeat(s, b, nil)
	if err != nil || len(hb) != 1 || !hb[0].Expires.Equal(now.Add(ttl)) || !hb[0].Heartbeat.Equal(now) {
		t.Fatalf("Heartbeat = %+v, %v", hb, err)
	}
	if _, err := Heartbeat(s, a, []string{issue}); err == nil {
		t.Fatal("Heartbeat of a claim the session does not hold succeeded")
	}
	// Reclaim: refused while the lease runs, taken and audited once it ends.
	if _, err := Reclaim(s, a, issue, "b went quiet", nil); err == nil || !strings.Contains(err.Error(), "the lease has not ended") {
		t.Fatalf("Reclaim of a live lease: %v", err)
	}
	now = now.Add(ttl)
	if _, err := Take(s, a, issue, "start", HandOver{}); err == nil || !strings.Contains(err.Error(), "td reclaim td-aaaaaa takes it over") {
		t.Fatalf("Take of an ended lease: %v", err)
	}
	if _, err := Reclaim(s, a, issue, "  ", nil); err == nil || !strings.Contains(err.Error(), "a reclaim needs a reason") {
		t.Fatalf("Reclaim without a reason: %v", err)
	}
	rc, err := Reclaim(s, a, issue, "b went quiet", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Previous.Session != b.ID || rc.Claim.Session != a.ID || rc.Security.Kind != audit.KindClaimReclaimed ||
		!strings.HasSuffix(rc.Security.Reason, ": b went quiet") {
		t.Fatalf("Reclaim = %+v", rc)
	}
	evs, err := s.SecurityEvents()
	if err != nil || len(evs) != 1 || evs[0].Kind != audit.KindClaimReclaimed {
		t.Fatalf("security events = %+v, %v", evs, err)
	}
	if _, err := Reclaim(s, a, issue, "mine", nil); err == nil {
		t.Fatal("reclaiming one's own claim succeeded")
	}
	cs, err := Load(s)
	if err != nil || cs.Len() != 1 || cs.Get(issue).Session != a.ID || len(cs.All()) != 1 {
		t.Fatalf("Load = %+v, %v", cs, err)
	}
	if c, err := Release(s, issue, b.ID, a.ID); err != nil || c == nil || c.Session != a.ID {
		t.Fatalf("Release = %v, %v", c, err)
	}
	if c, err := Release(s, issue, b.ID, a.ID); c != nil || err != nil {
		t.Fatalf("second Release = %v, %v", c, err)
	}
	// Neither an issue here nor a claim anywhere: nothing to name.
	if _, err := Reclaim(s, a, issue, "gone", nil); err == nil || !strings.Contains(err.Error(), "no issue matches") {
		t.Fatalf("Reclaim of nothing: %v", err)
	}
}

// Many sessions racing for one issue: exactly one holds it.
func TestTakeRace(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	setup := clockStore(t, g, &now)
	const n = 6
	sessions := make([]*repo.Session, n)
	for i := range sessions {
		se, err := setup.StartSession(repo.StartOptions{Name: "s"})
		if err != nil {
			t.Fatal(err)
		}
		sessions[i] = se
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := clockStore(t, g, &now)
			_, errs[i] = Take(s, sessions[i], "td-race00", "start", HandOver{})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var re *repo.Error
		switch {
		case err == nil:
			won++
		case errors.As(err, &re) && re.Code == repo.CodeRefused:
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d sessions hold the claim, want 1", won)
	}
}

// A store outside git has no claims and refuses nothing.
func TestNoGit(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	if res, err := Take(s, se, "td-aaaaaa", "start", HandOver{}); res != nil || err != nil {
		t.Fatalf("Take = %v, %v", res, err)
	}
	if c, err := Release(s, "td-aaaaaa", se.ID, ""); c != nil || err != nil {
		t.Fatalf("Release = %v, %v", c, err)
	}
	cs, err := Load(s)
	if err != nil || cs.Len() != 0 || cs.Get("td-aaaaaa") != nil {
		t.Fatalf("Load = %v, %v", cs, err)
	}
}

// RenewBound renews the bound issue's claim once a quarter of the lease
// has passed, and nothing else.
func TestRenewBound(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	se, err := s.StartSession(repo.StartOptions{Name: "a", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := RenewBound(s, se); c != nil || err != nil {
		t.Fatalf("unbound: %v, %v", c, err)
	}
	const issue = "td-aaaaaa"
	if err := s.SetBinding(se.ID, issue); err != nil {
		t.Fatal(err)
	}
	if c, err := RenewBound(s, se); c != nil || err != nil {
		t.Fatalf("bound, no claim: %v, %v", c, err)
	}
	if _, err := Take(s, se, issue, "start", HandOver{}); err != nil {
		t.Fatal(err)
	}
	quarter := s.Config.ClaimTTL() / 4
	now = now.Add(quarter - time.Second)
	if c, err := RenewBound(s, se); c != nil || err != nil {
		t.Fatalf("too soon: %v, %v", c, err)
	}
	now = now.Add(time.Second)
	c, err := RenewBound(s, se)
	if err != nil || c == nil || !c.Expires.Equal(now.Add(s.Config.ClaimTTL())) {
		t.Fatalf("due: %+v, %v", c, err)
	}
	// The runtime keeps the expiry read: the hooks until the next renewal
	// is due need not read the claim.
	if rt, _ := s.Runtime(se.ID); !rt.ClaimExpires.Equal(c.Expires) {
		t.Fatalf("the runtime noted %v, want %v", rt.ClaimExpires, c.Expires)
	}
	// The conversation ends: the lease ends now, and nothing is due to a
	// hook that comes later unless the conversation goes on, which renews
	// it at once.
	now = now.Add(time.Minute)
	ended, err := EndLease(s, se, now)
	if err != nil || ended == nil || !ended.Expires.Equal(now) {
		t.Fatalf("EndLease: %+v, %v", ended, err)
	}
	if again, err := EndLease(s, se, now.Add(time.Hour)); err != nil || !again.Expires.Equal(now) {
		t.Fatalf("a later end moved the lease on: %+v, %v", again, err)
	}
	now = now.Add(time.Minute)
	c, err = RenewBound(s, se)
	if err != nil || c == nil || !c.Expires.Equal(now.Add(s.Config.ClaimTTL())) {
		t.Fatalf("the conversation goes on: %+v, %v", c, err)
	}
	other, _ := s.StartSession(repo.StartOptions{Name: "b", Agent: "primary"})
	if c, err := EndLease(s, other, now); c != nil || err != nil {
		t.Fatalf("a session bound to nothing ends nothing: %+v, %v", c, err)
	}
}

// FuzzParseRecord reads any commit message a claim reference could name:
// it never panics, and a record it reads is written back to the same claim.
func FuzzParseRecord(f *testing.F) {
	f.Add("td claim td-aaaaaa\n\ntd-claim: 1\nissue: td-aaaaaa\nsession: ses_aaaaaaaa\nactor: Op <op@example.com>\nagent: primary\nworktree: /src/app\nhost: laptop\nclaimed: 2026-11-21T10:00:00Z\nheartbeat: 2026-11-21T10:01:00Z\nexpires: 2026-11-21T12:00:00Z\n")
	f.Add("td claim x\r\n\r\ntd-claim: 1\r\nissue: x\r\nsession: s\r\nexpires: 2026-11-21T10:00:00+02:00\r\n")
	f.Add("td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: soon\n")
	f.Add("td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nexpires: 2026-11-21T10:00:00Z\nends-seen: 3\nlater-key: kept out\n")
	f.Add("other commit\n\ntd-claim: 1\n")
	f.Add("td claim x\n\ntd-claim: 1\nissue: x\nsession: s\nclaimed: 2026-11-21T10:00:00Z\nexpires: 2026-11-21T12:00:00Z\npublished: 2026-11-21T10:00:05Z\n")
	f.Fuzz(func(t *testing.T, msg string) {
		c, err := parseRecord(msg)
		if err != nil {
			return
		}
		again, err := formatRecord(c)
		if err != nil {
			return // a value with a line break td would not have written
		}
		d, err := parseRecord(again)
		if err != nil {
			t.Fatalf("the record %q, written back as %q, does not parse: %v", msg, again, err)
		}
		if d.Issue != c.Issue || d.Session != c.Session || d.Actor != c.Actor || d.Worktree != c.Worktree || d.Host != c.Host ||
			!d.Claimed.Equal(c.Claimed) || !d.Heartbeat.Equal(c.Heartbeat) || !d.Expires.Equal(c.Expires) || d.EndsSeen != c.EndsSeen || !d.Published.Equal(c.Published) {
			t.Fatalf("the record %q read as %+v, written back and read as %+v", msg, *c, *d)
		}
	})
}

// appendEnd records that the work on issue ended (action) at the store's
// now, as td unstart, close, approve or reopen would in the ledger.
func appendEnd(t *testing.T, s *repo.Store, se *repo.Session, issue, action string) {
	t.Helper()
	err := s.Update(func(tx *repo.Tx) error {
		return s.AppendLedger(tx, issue, audit.Entry{TS: s.Now(), Session: se.ID, Action: action})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A claim follows its issue: once the ledger here records the end of the
// work after the claim was taken, the claim is stale: not shown, no bar
// to another session's start, not renewed, not reclaimed.
func TestStaleClaims(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	agent, err := s.StartSession(repo.StartOptions{Name: "agent", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	op, err := s.StartSession(repo.StartOptions{Name: "op"})
	if err != nil {
		t.Fatal(err)
	}
	const issue = "td-aaaaaa"
	if _, err := Take(s, agent, issue, "start", HandOver{}); err != nil {
		t.Fatal(err)
	}
	// An end recorded before the claim was taken is history.
	cs, _ := Load(s)
	if cs.Get(issue) == nil {
		t.Fatal("a fresh claim does not stand")
	}
	now = now.Add(10 * time.Minute)
	appendEnd(t, s, op, issue, audit.ActionApproved)
	cs, _ = Load(s)
	if cs.Get(issue) != nil || cs.Raw(issue) == nil || len(cs.All()) != 0 || len(cs.AllRaw()) != 1 {
		t.Fatalf("a claim the approval ended still stands: %+v", cs.Get(issue))
	}
	if end, ok := cs.Ended(cs.Raw(issue)); !ok || end.Action != audit.ActionApproved || !end.TS.Equal(now) {
		t.Fatalf("Ended = %+v, %v", end, ok)
	}
	if _, err := Heartbeat(s, agent, []string{issue}); err == nil || !strings.Contains(err.Error(), "td-aaaaaa was approved at 2026-11-21T10:10:00Z, after the claim was taken") {
		t.Fatalf("Heartbeat of a stale claim: %v", err)
	}
	if c, err := RenewBound(s, agent); c != nil || err != nil {
		t.Fatalf("RenewBound of a stale claim = %v, %v", c, err)
	}
	if _, err := Reclaim(s, op, issue, "gone", nil); err == nil || !strings.Contains(err.Error(), "nothing to reclaim on td-aaaaaa") {
		t.Fatalf("Reclaim of a stale claim: %v", err)
	}
	// Another session takes the issue; the stale claim is reported.
	now = now.Add(10 * time.Minute)
	res, err := Take(s, op, issue, "start", HandOver{})
	if err != nil || res.Stale == nil || res.Stale.Session != agent.ID || res.End.Action != audit.ActionApproved || res.From != "" {
		t.Fatalf("Take over a stale claim = %+v, %v", res, err)
	}

	// In one second: reopened, then taken: the claim saw the reopen and
	// stands; closed in that second after it was taken, it is stale.
	now = now.Add(10 * time.Minute)
	appendEnd(t, s, op, issue, audit.ActionReopened)
	res, err = Take(s, agent, issue, "start", HandOver{})
	if err != nil || res.Claim.EndsSeen != 1 || res.Stale == nil {
		t.Fatalf("Take after a reopen in the same second = %+v, %v", res, err)
	}
	cs, _ = Load(s)
	if cs.Get(issue) == nil {
		t.Fatal("a claim taken after a reopen in the same second does not stand")
	}
	appendEnd(t, s, op, issue, audit.ActionClosed)
	cs, _ = Load(s)
	if cs.Get(issue) != nil {
		t.Fatal("a claim closed in the second it was taken still stands")
	}
}

// td unstart on an issue that is not in progress releases a stray claim
// for its holder's actor or an operator, and refuses anyone else.
func TestReleaseStray(t *testing.T) {
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	agent, err := s.StartSession(repo.StartOptions{Name: "agent", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.StartSession(repo.StartOptions{Name: "other", Agent: "reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	const issue = "td-aaaaaa"
	if c, err := ReleaseStray(s, other, issue, false, domain.StatusOpen); c != nil || err != nil {
		t.Fatalf("nothing to release = %v, %v", c, err)
	}
	if _, err := Take(s, agent, issue, "start", HandOver{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReleaseStray(s, other, issue, false, domain.StatusOpen); err == nil || !strings.Contains(err.Error(), "only the holder or an operator releases that claim") {
		t.Fatalf("another agent's release: %v", err)
	}
	if c, err := ReleaseStray(s, other, issue, true, domain.StatusOpen); err != nil || c == nil || c.Session != agent.ID {
		t.Fatalf("an operator's release = %v, %v", c, err)
	}
	if _, err := Take(s, agent, issue, "start", HandOver{}); err != nil {
		t.Fatal(err)
	}
	// Another session of the holder's actor may.
	again, err := s.StartSession(repo.StartOptions{Name: "again", Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ReleaseStray(s, again, issue, false, domain.StatusClosed); err != nil || c == nil {
		t.Fatalf("the holder's release = %v, %v", c, err)
	}
}
