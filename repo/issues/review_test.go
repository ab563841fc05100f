package issues

import (
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// TestReviewableUsesThePolicy checks the one filter behind td reviewable,
// td list --reviewable and td status, for both policies, over enough issues
// that the parallel path runs (and the race detector sees it).
func TestReviewableUsesThePolicy(t *testing.T) {
	s := repotest.NewStore(t)
	lead := repotest.Actor(t, s)
	worker, err := s.StartSession(repo.StartOptions{Agent: "primary"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.StartSession(repo.StartOptions{Agent: "other"})
	if err != nil {
		t.Fatal(err)
	}
	submit := func(creator, implementer *repo.Session, title string) string {
		t.Helper()
		is, err := Create(s, creator, CreateOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Start(s, implementer, is.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := Review(s, implementer, is.ID, TransitionOptions{}); err != nil {
			t.Fatal(err)
		}
		return is.ID
	}
	want := map[string]bool{} // id -> needs a reason, for the lead
	for i := 0; i < 6; i++ {
		want[submit(lead, worker, "lead's")] = true // creator exception
		want[submit(other, worker, "other's")] = false
		submit(other, lead, "the lead implements") // never reviewable by the lead
	}
	got, perrs, err := Reviewable(s, lead)
	if err != nil || len(perrs) > 0 {
		t.Fatalf("Reviewable: %v %v", err, perrs)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d reviewable issues, want %d", len(got), len(want))
	}
	for _, ri := range got {
		needs, ok := want[ri.Issue.ID]
		if !ok || needs != ri.NeedsReason {
			t.Errorf("%s %q: reviewable with needs-reason %t, want listed %t with %t", ri.Issue.ID, ri.Issue.Title, ri.NeedsReason, ok, needs)
		}
	}

	// Strict: the creator's issues drop out.
	strict := map[string]string{"TD_FEATURE_BALANCED_REVIEW_POLICY": "false", "GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	s2, err := repo.Open(s.Root, repo.Options{Now: s.Now, Env: func(k string) string { return strict[k] }})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err = Reviewable(s2, lead)
	if err != nil {
		t.Fatal(err)
	}
	for _, ri := range got {
		if want[ri.Issue.ID] {
			t.Errorf("strict policy listed the lead's own issue %s", ri.Issue.ID)
		}
	}
	if len(got) != 6 {
		t.Errorf("strict: %d reviewable, want the 6 the lead has no history on", len(got))
	}
}
