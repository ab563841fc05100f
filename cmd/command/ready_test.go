package command

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

func TestReadyOptions(t *testing.T) {
	testParse(t, (*runner).readyCommand, []parseCase[ReadyOptions]{
		{name: "all", argv: []string{"ready"}, want: ReadyOptions{}},
		{name: "as a session", argv: []string{"ready", "--session", "ses_12345678"}, want: ReadyOptions{Session: "ses_12345678"}},
		{name: "filters", argv: []string{"ready", "-p", "P0", "-p", "P1", "--label", "auth,ui", "-t", "bug", "-a", "me"},
			want: ReadyOptions{Filter: repo.Filter{Priorities: []string{"P0", "P1"}, Labels: []string{"auth", "ui"}, Types: []string{"bug"}, Assignee: "me"}}},
		{name: "argument", argv: []string{"ready", "now"}, usage: true},
	})
}

// td ready --json is written by hand around the list writer; it must be
// what encoding/json writes for the same object.
func TestReadyListJSONMatchesEncodingJSON(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	list := []*repo.Issue{
		{Issue: domain.Issue{ID: "td-abc123", Title: "Quotes \" and <html> & \n", Status: "open", Type: "task", Priority: "P2", CreatedAt: ts}, Path: "p"},
		{Issue: domain.Issue{ID: "td-abc124", Title: "Second", Labels: []string{"a"}}, Path: "q"},
	}
	claim := &claimJSON{Issue: "td-abc125", Session: "ses_12345678", Actor: "Bob <bob@example.com>", Agent: "primary", Worktree: "/src/app-2", Expires: "2026-11-21T12:00:00Z"}
	for _, c := range []struct {
		list    []*repo.Issue
		leftOut []leftOutJSON
	}{
		{nil, nil},
		{list, nil},
		{nil, []leftOutJSON{{ID: "td-abc126", Title: "Accounts <epic>", Reason: "epic"}}},
		{list, []leftOutJSON{{ID: "td-abc125", Title: "Claimed", Reason: "claimed", Claim: claim}, {ID: "td-abc126", Title: "Accounts", Reason: "epic"}}},
	} {
		var got bytes.Buffer
		if err := (readyList{issueList{c.list, nil, nil}, c.leftOut}).WriteJSON(&c1Escaper{w: &got}); err != nil {
			t.Fatal(err)
		}
		leftOut := c.leftOut
		if leftOut == nil {
			leftOut = []leftOutJSON{}
		}
		var want bytes.Buffer
		st := &streams{out: &want}
		if err := st.emitJSON(struct {
			Issues  json.RawMessage `json:"issues"`
			LeftOut []leftOutJSON   `json:"left_out"`
		}{encodingJSON(t, c.list, nil, nil), leftOut}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("ready list:\n got %s\nwant %s", got.Bytes(), want.Bytes())
		}
		if !json.Valid(got.Bytes()) {
			t.Errorf("not JSON: %s", got.Bytes())
		}
	}
}
