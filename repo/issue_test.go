package repo

import (
	"testing"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// TestBuildIssueDocMatchesNewIssueDoc: a new issue file has td's layout,
// and an import's rendering with more keys writes the bytes td create's
// rendering followed by a Set of those keys writes.
func TestBuildIssueDocMatchesNewIssueDoc(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 4, 11, 0, time.UTC)
	mk := func() *Issue {
		return &Issue{Issue: domain.Issue{ID: "td-k3x9qa", Title: "Sign in: with GitHub #1", Status: domain.StatusClosed,
			Type: domain.TypeFeature, Priority: domain.P1, Minor: true, Labels: []string{"auth", "a b"}, CreatedBy: "ses_7hq2m4p1",
			Assignee: "alice", Resolution: domain.ResolutionDone, Links: []domain.Link{{Kind: domain.ChildOf, To: "td-a0b1c2"}},
			CreatedAt: at, UpdatedAt: at}}
	}
	body := "\nThe description.\n\n## Acceptance criteria\n\n## Todos\n"
	want, err := NewIssueDoc(mk(), "The description.")
	if err != nil {
		t.Fatal(err)
	}
	// The layout a line merge needs: every field that changes on its own
	// apart from the others.
	const layout = `---
id: td-k3x9qa
title: "Sign in: with GitHub #1"
created_by: ses_7hq2m4p1
created_at: 2026-11-21T10:04:11Z

status: closed
resolution: done

implementer: ""

assignee: alice

type: feature

priority: P1

minor: true

labels:
  - auth
  - a b

links:
  - {kind: child_of, to: td-a0b1c2}
---

The description.

## Acceptance criteria

## Todos
`
	if string(want.Bytes()) != layout {
		t.Fatalf("NewIssueDoc wrote\n%s\nwant\n%s", want.Bytes(), layout)
	}
	if err := want.Front.Set("imported_from", markdown.Str("beads:bd-1")); err != nil {
		t.Fatal(err)
	}
	got, err := BuildIssueDoc(mk(), []byte(body), []markdown.KeyValue{{Key: "imported_from", Value: markdown.Str("beads:bd-1")}})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Bytes()) != string(want.Bytes()) {
		t.Fatalf("BuildIssueDoc wrote\n%s\nNewIssueDoc and Set write\n%s", got.Bytes(), want.Bytes())
	}
	if _, err := BuildIssueDoc(mk(), nil, []markdown.KeyValue{{Key: "title", Value: markdown.Str("again")}}); err == nil {
		t.Fatal("a key given twice was accepted")
	}
}
