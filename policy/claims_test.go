package policy

import (
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
)

func TestMayClaim(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	live := &domain.Claim{Session: "ses_a", Expires: now.Add(time.Minute)}
	ended := &domain.Claim{Session: "ses_a", Expires: now}
	for _, c := range []struct {
		name string
		held *domain.Claim
		ask  ClaimAsk
		want ClaimVerdict
	}{
		{"free", nil, ClaimAsk{Session: "ses_b"}, ClaimTake},
		{"own live", live, ClaimAsk{Session: "ses_a"}, ClaimRenew},
		{"own ended", ended, ClaimAsk{Session: "ses_a"}, ClaimRenew},
		{"other live", live, ClaimAsk{Session: "ses_b"}, ClaimHeld},
		{"other ended at the instant", ended, ClaimAsk{Session: "ses_b"}, ClaimExpired},
		{"handed over by its holder", live, ClaimAsk{Session: "ses_b", HandOver: "ses_a"}, ClaimTake},
		{"handed over by a non-holder", live, ClaimAsk{Session: "ses_b", HandOver: "ses_c"}, ClaimHeld},
		{"an ended lease is not the sender's to hand", ended, ClaimAsk{Session: "ses_b", HandOver: "ses_a"}, ClaimExpired},
		{"an operator reassigns in the holder's work tree", live, ClaimAsk{Session: "ses_b", HandOver: "ses_c", OperatorHere: true}, ClaimTake},
		{"an operator reassigns an ended lease there too", ended, ClaimAsk{Session: "ses_b", HandOver: "ses_c", OperatorHere: true}, ClaimTake},
	} {
		if got := MayClaim(c.held, c.ask, now); got != c.want {
			t.Errorf("%s: MayClaim = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestMayReclaim(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name    string
		held    *domain.Claim
		session string
		want    ReclaimVerdict
	}{
		{"nothing held", nil, "ses_b", ReclaimNothing},
		{"own", &domain.Claim{Session: "ses_b", Expires: now.Add(-time.Hour)}, "ses_b", ReclaimOwn},
		{"live", &domain.Claim{Session: "ses_a", Expires: now.Add(time.Second)}, "ses_b", ReclaimLive},
		{"ended", &domain.Claim{Session: "ses_a", Expires: now.Add(-time.Second)}, "ses_b", ReclaimTake},
		{"ends now", &domain.Claim{Session: "ses_a", Expires: now}, "ses_b", ReclaimTake},
	} {
		if got := MayReclaim(c.held, c.session, now); got != c.want {
			t.Errorf("%s: MayReclaim = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestReleasedBy(t *testing.T) {
	held := &domain.Claim{Session: "ses_a"}
	for _, c := range []struct {
		name                 string
		held                 *domain.Claim
		session, implementer string
		want                 bool
	}{
		{"none", nil, "ses_a", "ses_a", false},
		{"holder itself", held, "ses_a", "", true},
		{"reviewer approving the holder's work", held, "ses_r", "ses_a", true},
		{"someone took it since", held, "ses_r", "ses_b", false},
		{"no implementer", held, "ses_r", "", false},
	} {
		if got := ReleasedBy(c.held, c.session, c.implementer); got != c.want {
			t.Errorf("%s: ReleasedBy = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestClaimEnd(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	claim := func(seen int) *domain.Claim { return &domain.Claim{Session: "ses_a", Claimed: at, EndsSeen: seen} }
	end := func(d time.Duration, action string) WorkEnd {
		return WorkEnd{TS: at.Add(d), Action: action, Session: "ses_r"}
	}
	for _, c := range []struct {
		name   string
		held   *domain.Claim
		ends   []WorkEnd
		want   bool
		action string // of the end found
	}{
		{"no claim", nil, []WorkEnd{end(time.Minute, "closed")}, false, ""},
		{"no end", claim(0), nil, false, ""},
		{"an end before the claim is history", claim(0), []WorkEnd{end(-time.Minute, "reopened")}, false, ""},
		{"an approval after it ends it", claim(0), []WorkEnd{end(-time.Minute, "reopened"), end(time.Minute, "approved")}, true, "approved"},
		{"the earliest end after it, in any order", claim(0), []WorkEnd{end(2*time.Minute, "reopened"), end(time.Minute, "closed")}, true, "closed"},
		{"sub-second times count as their second", claim(-1), []WorkEnd{end(500*time.Millisecond, "closed")}, false, ""},
		{"an end in its second that the taker saw", claim(1), []WorkEnd{end(0, "reopened")}, false, ""},
		{"an end in its second the taker had not seen", claim(1), []WorkEnd{end(0, "reopened"), end(0, "closed")}, true, "reopened"},
		{"an end in its second, for a record that does not say", claim(-1), []WorkEnd{end(0, "closed")}, false, ""},
		{"a later end, for a record that does not say", claim(-1), []WorkEnd{end(time.Second, "unstarted")}, true, "unstarted"},
	} {
		got, ok := ClaimEnd(c.held, c.ends)
		if ok != c.want || ok && got.Action != c.action {
			t.Errorf("%s: ClaimEnd = %+v, %v; want %v (%s)", c.name, got, ok, c.want, c.action)
		}
	}
	if n := EndsAt([]WorkEnd{end(0, "reopened"), end(time.Second, "closed"), end(300*time.Millisecond, "unstarted")}, at); n != 2 {
		t.Errorf("EndsAt = %d, want 2", n)
	}
}

func TestClaimBars(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	agent := domain.Actor{Identity: "Lead <lead@example.com>", Agent: "primary"}
	lead := domain.Actor{Identity: "Lead <lead@example.com>"}
	dana := domain.Actor{Identity: "Dana <dana@example.com>"}
	held := &domain.Claim{Session: "ses_a", Actor: agent, Claimed: at, Expires: at.Add(2 * time.Hour), EndsSeen: 0}
	approved := []WorkEnd{{TS: at.Add(time.Hour), Action: "approved"}}
	for _, c := range []struct {
		name     string
		held     *domain.Claim
		ends     []WorkEnd
		w        Work
		actor    domain.Actor
		operator bool
		when     time.Duration
		want     bool
	}{
		{"no claim", nil, nil, WorkStart, dana, false, 0, false},
		{"the holder's actor, in any session", held, nil, WorkSubmit, agent, false, time.Minute, false},
		{"another actor starts while the lease runs", held, nil, WorkStart, dana, false, time.Minute, true},
		{"another actor submits", held, nil, WorkSubmit, dana, false, time.Minute, true},
		{"another agent ticks a criterion", held, nil, WorkCriterion, domain.Actor{Identity: "Dana <dana@example.com>", Agent: "primary"}, false, time.Minute, true},
		{"a person who is not an operator ticks a criterion", held, nil, WorkCriterion, dana, false, time.Minute, true},
		{"an operator ticks a criterion: the definition of done is theirs", held, nil, WorkCriterion, lead, true, time.Minute, false},
		{"an operator still may not start or submit someone else's work", held, nil, WorkSubmit, lead, true, time.Minute, true},
		{"work before the claim was taken", held, nil, WorkStart, dana, false, -time.Minute, false},
		{"work once the lease ended", held, nil, WorkStart, dana, false, 2 * time.Hour, false},
		{"work before the ledger ended the claim", held, approved, WorkStart, dana, false, 59 * time.Minute, true},
		{"work after the ledger ended the claim", held, approved, WorkStart, dana, false, 61 * time.Minute, false},
		{"work in the second the ledger ended it", held, approved, WorkStart, dana, false, time.Hour, false},
		// Published at once, as td start publishes: seen from that second on.
		{"published at once: work in the second it was published", published(held, 0), nil, WorkStart, dana, false, 0, false},
		{"published at once: work a second later", published(held, 0), nil, WorkStart, dana, false, time.Second, true},
		// Taken offline at 10:00, published by td sync at 10:30: work in
		// between could not have seen it.
		{"taken offline: a start before it was published", published(held, 30*time.Minute), nil, WorkStart, dana, false, 10 * time.Minute, false},
		{"taken offline: a submission before it was published", published(held, 30*time.Minute), nil, WorkSubmit, dana, false, 29 * time.Minute, false},
		{"taken offline: a start in the second it was published", published(held, 30*time.Minute), nil, WorkStart, dana, false, 30 * time.Minute, false},
		{"taken offline: a start after it was published", published(held, 30*time.Minute), nil, WorkStart, dana, false, 31 * time.Minute, true},
		{"published, and the lease ended", published(held, 30*time.Minute), nil, WorkStart, dana, false, 2 * time.Hour, false},
	} {
		if got := ClaimBars(c.held, c.ends, c.w, c.actor, c.operator, at.Add(c.when)); got != c.want {
			t.Errorf("%s: ClaimBars = %v, want %v", c.name, got, c.want)
		}
	}
}

// published is held as published to the claims remote after (from when
// it was taken).
func published(held *domain.Claim, after time.Duration) *domain.Claim {
	c := *held
	c.Published = c.Claimed.Add(after)
	return &c
}

func TestJudgeClaimedWork(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	bob := domain.Actor{Identity: "Bob <bob@example.com>"}
	agent := domain.Actor{Identity: "Alice <alice@example.com>", Agent: "primary"}
	held := &domain.Claim{Session: "ses_b", Actor: bob, Claimed: at, Expires: at.Add(2 * time.Hour), EndsSeen: 0, Published: at}
	for _, c := range []struct {
		name        string
		w           Work
		actor       domain.Actor
		when        time.Duration
		unpublished bool
		want        ClaimJudgement
	}{
		{"a start td compared with the remote, after the claim was published", WorkStart, agent, time.Minute, false, ClaimWorkBarred},
		{"a start whose claim could not be published: the starter could not see", WorkStart, agent, time.Minute, true, ClaimWorkUnseen},
		{"the same start before the claim was published", WorkStart, agent, -time.Minute, true, ClaimWorkPasses},
		{"a submission is judged as anyone's, whatever its start saw", WorkSubmit, agent, time.Minute, true, ClaimWorkBarred},
		{"a criterion ticked by the unpublished starter", WorkCriterion, agent, time.Minute, true, ClaimWorkBarred},
		{"the holder's own start", WorkStart, bob, time.Minute, true, ClaimWorkPasses},
		{"a start once the lease ended", WorkStart, agent, 2 * time.Hour, true, ClaimWorkPasses},
	} {
		if got := JudgeClaimedWork(held, nil, c.w, c.actor, false, at.Add(c.when), c.unpublished); got != c.want {
			t.Errorf("%s: JudgeClaimedWork = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMayReleaseStray(t *testing.T) {
	agent := domain.Actor{Identity: "Lead <lead@example.com>", Agent: "primary"}
	held := &domain.Claim{Session: "ses_a", Actor: agent}
	for _, c := range []struct {
		name     string
		held     *domain.Claim
		actor    domain.Actor
		operator bool
		want     bool
	}{
		{"nothing held", nil, agent, true, false},
		{"the holder's actor", held, agent, false, true},
		{"an operator", held, domain.Actor{Identity: "Lead <lead@example.com>"}, true, true},
		{"another agent", held, domain.Actor{Identity: "Lead <lead@example.com>", Agent: "other"}, false, false},
		{"a person who is not an operator", held, domain.Actor{Identity: "Dana <dana@example.com>"}, false, false},
	} {
		if got := MayReleaseStray(c.held, c.actor, c.operator); got != c.want {
			t.Errorf("%s: MayReleaseStray = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestClosedBy(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	end := func(min int, action string) WorkEnd {
		return WorkEnd{TS: at.Add(time.Duration(min) * time.Minute), Action: action}
	}
	for _, c := range []struct {
		name   string
		ends   []WorkEnd
		closed bool
		last   int // minute of the end returned
	}{
		{"no end", nil, false, 0},
		{"closed", []WorkEnd{end(5, EndClosed)}, true, 5},
		{"approved", []WorkEnd{end(5, EndApproved)}, true, 5},
		{"closed, then reopened", []WorkEnd{end(5, EndClosed), end(9, EndReopened)}, false, 9},
		{"reopened, then closed, listed out of order", []WorkEnd{end(9, EndApproved), end(5, EndReopened), end(1, EndClosed)}, true, 9},
		{"handed back last", []WorkEnd{end(5, EndUnstarted)}, false, 5},
	} {
		last, closed := ClosedBy(c.ends)
		if closed != c.closed || len(c.ends) > 0 && !last.TS.Equal(at.Add(time.Duration(c.last)*time.Minute)) {
			t.Errorf("%s: ClosedBy = %+v, %v", c.name, last, closed)
		}
	}
	closed := end(5, EndClosed)
	for _, c := range []struct {
		name string
		here []WorkEnd
		want bool
	}{
		{"nothing here", nil, false},
		{"reopened here after the close", []WorkEnd{end(7, EndReopened)}, true},
		{"reopened here before the close", []WorkEnd{end(3, EndReopened)}, false},
		{"closed here after it", []WorkEnd{end(7, EndClosed)}, false},
	} {
		if got := ReopenedAfter(c.here, closed); got != c.want {
			t.Errorf("%s: ReopenedAfter = %v", c.name, got)
		}
	}
}

// TestLeaseBeyond: a lease no td could have given now is refused; one
// within the ttl, clock skew allowed, stands.
func TestLeaseBeyond(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ttl := 2 * time.Hour
	for _, c := range []struct {
		name                        string
		claimed, heartbeat, expires time.Time
		beyond                      bool
	}{
		{"taken now", now, now, now.Add(ttl), false},
		{"renewed an hour ago", now.Add(-3 * time.Hour), now.Add(-time.Hour), now.Add(time.Hour), false},
		{"expired", now.Add(-5 * time.Hour), now.Add(-4 * time.Hour), now.Add(-2 * time.Hour), false},
		{"a clock five minutes ahead", now.Add(5 * time.Minute), now.Add(5 * time.Minute), now.Add(ttl + 5*time.Minute), false},
		{"at the skew's edge", now, now, now.Add(ttl + LeaseSkew), false},
		{"a second past it", now, now, now.Add(ttl + LeaseSkew + time.Second), true},
		{"until 9999", now, now, time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{"a day's lease", now, now, now.Add(24 * time.Hour), true},
		{"renewed tomorrow", now, now.Add(24 * time.Hour), now.Add(time.Hour), true},
		{"taken next year", now.AddDate(1, 0, 0), now, now.Add(time.Hour), true},
	} {
		cl := &domain.Claim{Claimed: c.claimed, Heartbeat: c.heartbeat, Expires: c.expires}
		if got := LeaseBeyond(cl, ttl, now); got != c.beyond {
			t.Errorf("%s: LeaseBeyond = %v, want %v", c.name, got, c.beyond)
		}
	}
	if LeaseBeyond(nil, ttl, now) {
		t.Error("no claim runs beyond anything")
	}
}
