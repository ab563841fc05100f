package review

import (
	"slices"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
)

// TestOpenCriteriaAt pins what a decision is judged with: the criteria
// open when it was made, whatever came after or beside it.
func TestOpenCriteriaAt(t *testing.T) {
	const file = `---
id: td-qkm5oz
title: Sign in
status: closed
resolution: done
---

## Acceptance criteria

- [ ] Open now
- [x] Done now
- [-] Dropped now
`
	is, err := repo.ParseIssue(".todos/issues/td-qkm5oz.md", "td-qkm5oz", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	ent := func(action, text string) audit.Entry {
		return audit.Entry{Action: action, Details: map[string]any{"text": text}}
	}
	for _, tc := range []struct {
		name         string
		prior, after []audit.Entry
		want         []string
	}{
		{"nothing after: the file's state", nil, nil, []string{"Open now"}},
		{"added after: not there", nil, []audit.Entry{ent(audit.ActionCriterionAdded, "Open now")}, nil},
		{"reopened after: met then", nil, []audit.Entry{ent(audit.ActionCriterionReopened, "Open now")}, nil},
		{"completed after: open then", nil, []audit.Entry{ent(audit.ActionCriterionCompleted, "Done now")}, []string{"Open now", "Done now"}},
		{"reopened and completed after: met then", nil, []audit.Entry{ent(audit.ActionCriterionReopened, "Done now"), ent(audit.ActionCriterionCompleted, "Done now")}, []string{"Open now"}},
		{"completed before, reopened after", []audit.Entry{ent(audit.ActionCriterionCompleted, "Open now")}, []audit.Entry{ent(audit.ActionCriterionReopened, "Open now")}, nil},
		{"reopened before, completed after", []audit.Entry{ent(audit.ActionCriterionReopened, "Done now")}, []audit.Entry{ent(audit.ActionCriterionCompleted, "Done now")}, []string{"Open now", "Done now"}},
		{"dropped after a completion before", []audit.Entry{ent(audit.ActionCriterionCompleted, "Dropped now")}, []audit.Entry{ent(audit.ActionCriterionDropped, "Dropped now")}, []string{"Open now"}},
		{"dropped after an add before", []audit.Entry{ent(audit.ActionCriterionAdded, "Dropped now")}, []audit.Entry{ent(audit.ActionCriterionDropped, "Dropped now")}, []string{"Open now", "Dropped now"}},
	} {
		if got := openCriteriaAt(is, tc.prior, tc.after); !slices.Equal(got, tc.want) {
			t.Errorf("%s: open %q, want %q", tc.name, got, tc.want)
		}
	}
}
