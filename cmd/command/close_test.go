package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// TestAskClose checks the question td close asks on a terminal when the
// issue has open children: only y or yes closes.
func TestAskClose(t *testing.T) {
	children := []*repo.Issue{{Issue: domain.Issue{ID: "td-aaaaaa", Status: domain.StatusOpen, Title: "First"}}, {Issue: domain.Issue{ID: "td-bbbbbb", Status: domain.StatusInProgress, Title: "Second"}}}
	const question = "td-pppppp has 2 open children:\n" +
		"  td-aaaaaa  open         First\n" +
		"  td-bbbbbb  in_progress  Second\n" +
		"Close td-pppppp anyway? They stay open. [y/N] "
	for _, tc := range []struct {
		answer string
		want   bool
	}{
		{"y\n", true}, {"YES\n", true}, {" yes ", true},
		{"\n", false}, {"n\n", false}, {"", false}, {"yeah\n", false},
	} {
		var out bytes.Buffer
		r := &runner{st: &streams{in: strings.NewReader(tc.answer), out: &out, errOut: &out}}
		if got := r.askClose("td-pppppp", children); got != tc.want {
			t.Errorf("answer %q: close %v, want %v", tc.answer, got, tc.want)
		}
		if out.String() != question {
			t.Errorf("answer %q: asked\n%s\nwant\n%s", tc.answer, out.String(), question)
		}
	}
}

func TestCloseOptions(t *testing.T) {
	testParse(t, (*runner).closeCommand, []parseCase[CloseOptions]{
		{name: "default", argv: []string{"close", "k3x"}, want: CloseOptions{Issue: "k3x", Resolution: "done"}},
		{name: "wontfix", argv: []string{"close", "k3x", "--resolution", "wontfix", "-m", "superseded", "--session", "s-1"},
			want: CloseOptions{Session: "s-1", Issue: "k3x", Resolution: "wontfix", Reason: "superseded"}},
		{name: "self close", argv: []string{"close", "k3x", "--self-close-exception", "typo", "-y"},
			want: CloseOptions{Issue: "k3x", Resolution: "done", SelfCloseException: "typo", Yes: true}},
		{name: "duplicate", argv: []string{"close", "k3x", "--duplicate-of", "m2p"}, want: CloseOptions{Issue: "k3x", DuplicateOf: "m2p"}},
		{name: "duplicate with resolution", argv: []string{"close", "k3x", "--duplicate-of", "m2p", "--resolution", "done"}, usage: true},
		{name: "no id", argv: []string{"close"}, usage: true},
		{name: "force is review's", argv: []string{"close", "k3x", "--force"}, usage: true},
	})
}
