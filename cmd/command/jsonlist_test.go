package command

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
)

func encodingJSON(t testing.TB, list []*repo.Issue, claimOf func(*repo.Issue) *claimJSON, kids map[string]links.ChildCount) []byte {
	out := make([]listedIssueJSON, len(list))
	for i, is := range list {
		out[i] = listedIssueJSON{issueJSON: toIssueJSON(is)}
		if k := kids[is.ID]; k.Total > 0 {
			out[i].listChildrenJSON = &listChildrenJSON{Children: k.Total, ChildrenClosed: k.Closed}
		}
		if claimOf != nil {
			out[i].Claim = claimOf(is)
		}
	}
	var want bytes.Buffer
	st := &streams{out: &want}
	if err := st.emitJSON(out); err != nil {
		t.Fatal(err)
	}
	return want.Bytes()
}

func TestIssueListJSONMatchesEncodingJSON(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	lists := [][]*repo.Issue{
		nil,
		{{Issue: domain.Issue{ID: "td-abc123", Title: "Plain", Status: "open", Type: "task", Priority: "P2", CreatedAt: ts}, Path: "p"}},
		{
			{Issue: domain.Issue{ID: "td-abc123", Title: "Quotes \" and \\ and <html> & \u2028\u2029", Labels: []string{"a", "b\tc"}, Minor: true, Links: []domain.Link{{Kind: "child_of", To: "td-x00000"}, {Kind: "relates_to", To: "td-y00000"}}, CreatedAt: ts, UpdatedAt: ts}},
			{Issue: domain.Issue{ID: "td-abc124", Title: "Control \x00\x01\b\f\n\r\x1f and bad utf-8 \xff\xfe and ünïcödé 🎉", Assignee: "session:ses_12345678"}},
		},
		{
			{Issue: domain.Issue{ID: "td-abc125", Title: "Conflicted", Status: "open"}, Path: "p", Conflicted: true},
			{Issue: domain.Issue{ID: "td-abc126", Title: "After it"}, Path: "q"},
		},
	}
	// Children and claims, on the issues above, with and without a
	// conflict: every combination of the optional fields at the end.
	kids := map[string]links.ChildCount{"td-abc123": {Closed: 1, Total: 3}, "td-abc125": {Closed: 0, Total: 1}, "td-abc126": {Closed: 2, Total: 2}}
	claimOf := func(is *repo.Issue) *claimJSON {
		if is.ID == "td-abc124" || is.ID == "td-abc125" || is.ID == "td-abc126" {
			return &claimJSON{Issue: is.ID, Session: "ses_12345678", Actor: "Bob <bob@example.com>", Worktree: "/src/app-2", Expires: "2026-11-21T12:00:00Z"}
		}
		return nil
	}
	for i, list := range lists {
		for _, extra := range []struct {
			claimOf func(*repo.Issue) *claimJSON
			kids    map[string]links.ChildCount
		}{{nil, nil}, {nil, kids}, {claimOf, nil}, {claimOf, kids}} {
			var got bytes.Buffer
			if err := writeIssueListJSON(&got, list, extra.claimOf, extra.kids); err != nil {
				t.Fatal(err)
			}
			if want := encodingJSON(t, list, extra.claimOf, extra.kids); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("list %d (claims %t, children %t):\n got %s\nwant %s", i, extra.claimOf != nil, extra.kids != nil, got.Bytes(), want)
			}
		}
	}
}

func FuzzIssueListJSON(f *testing.F) {
	f.Add("title", "label", "td-abc123")
	f.Add("\x00\"\\\u2028<>&", "a\xffb", "\t")
	f.Fuzz(func(t *testing.T, title, label, other string) {
		list := []*repo.Issue{{Issue: domain.Issue{ID: other, Title: title, Labels: []string{label, title}, Links: []domain.Link{{Kind: domain.LinkKind(label), To: other}}}}}
		var got bytes.Buffer
		if err := writeIssueListJSON(&got, list, nil, nil); err != nil {
			t.Fatal(err)
		}
		if want := encodingJSON(t, list, nil, nil); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("\n got %s\nwant %s", got.Bytes(), want)
		}
		var back []map[string]any
		if err := json.Unmarshal(got.Bytes(), &back); err != nil {
			t.Fatalf("not JSON: %v", err)
		}
	})
}
