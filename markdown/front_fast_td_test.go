package markdown_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gen"
)

// frontOf returns the text between the frontmatter delimiters of a file.
func frontOf(t *testing.T, file []byte) []byte {
	t.Helper()
	rest, ok := bytes.CutPrefix(file, []byte("---\n"))
	end := bytes.Index(rest, []byte("\n---\n"))
	if !ok || end < 0 {
		t.Fatalf("no frontmatter in:\n%s", file)
	}
	return rest[:end+1]
}

// TestFrontFastAcceptsGenerated checks that the fast path reads every shape
// of the benchmark repository's issues: with and without links, every
// status, type and label set.
func TestFrontFastAcceptsGenerated(t *testing.T) {
	for i := range 300 {
		if raw := frontOf(t, gen.Issue(i)); !markdown.ParseFastAccepts(raw) {
			t.Fatalf("the fast path declines generated issue %d:\n%s", i, raw)
		}
	}
}

// TestFrontFastAcceptsNewIssue checks that the fast path reads an issue
// file as td creates it and as td rewrites its fields.
func TestFrontFastAcceptsNewIssue(t *testing.T) {
	is := &repo.Issue{Issue: domain.Issue{
		ID: "td-k3x9qa", Title: `Fix "login": it's 50% broken #12`, Status: domain.StatusOpen,
		Type: domain.IssueType("bug"), Priority: domain.Priority("P1"), Labels: []string{"auth", "ui"},
		CreatedBy: "ses_7hq2m4p1", Links: []domain.Link{{Kind: domain.ChildOf, To: "td-a0b1c2"}},
		CreatedAt: time.Date(2026, 11, 21, 10, 4, 11, 0, time.UTC),
	}}
	doc, err := repo.NewIssueDoc(is, "Users sign in.")
	if err != nil {
		t.Fatal(err)
	}
	if raw := doc.Front.Bytes(); !markdown.ParseFastAccepts(raw) {
		t.Fatalf("the fast path declines a new issue:\n%s", raw)
	}
	for _, set := range []struct {
		key string
		v   any
	}{
		{"status", "closed"}, {"resolution", "done"}, {"assignee", "session:ses_7hq2m4p1"},
		{"minor", true}, {"labels", []string{}}, {"links", []domain.Link{}},
		{"updated_at", time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)},
	} {
		if err := is.SetField(set.key, set.v); err != nil {
			t.Fatal(err)
		}
		if raw := doc.Front.Bytes(); !markdown.ParseFastAccepts(raw) {
			t.Fatalf("the fast path declines the issue after setting %s:\n%s", set.key, raw)
		}
	}
}
