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
