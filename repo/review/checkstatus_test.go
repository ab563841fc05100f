package review

import (
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestStatusRecorded(t *testing.T) {
	cases := []struct {
		name        string
		before, now domain.Status
		lastTo      string
		want        bool
	}{
		{"unchanged, nothing recorded", domain.StatusOpen, domain.StatusOpen, "", true},
		{"moved with td", domain.StatusOpen, domain.StatusInProgress, "in_progress", true},
		{"typed into the file", domain.StatusInProgress, domain.StatusClosed, "", false},
		{"typed past the last transition", domain.StatusOpen, domain.StatusClosed, "in_progress", false},
		{"moved away and back with td", domain.StatusOpen, domain.StatusOpen, "open", true},
		{"moved with td, then typed back", domain.StatusOpen, domain.StatusOpen, "in_progress", false},
		{"a new issue typed into review", domain.StatusOpen, domain.StatusInReview, "", false},
	}
	for _, c := range cases {
		if got := statusRecorded(c.before, c.now, c.lastTo); got != c.want {
			t.Errorf("%s: statusRecorded(%s, %s, %q) = %v, want %v", c.name, c.before, c.now, c.lastTo, got, c.want)
		}
	}
}
