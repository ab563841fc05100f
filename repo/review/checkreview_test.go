package review

import (
	"strings"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

func TestIssueBefore(t *testing.T) {
	started := func(from, to string) audit.Entry {
		return audit.Entry{Action: audit.ActionStarted, Details: map[string]any{"from": "open", "to": "in_progress",
			"implementer": map[string]any{"from": from, "to": to}}}
	}
	unstarted := func(from string) audit.Entry {
		return audit.Entry{Action: audit.ActionUnstarted, Details: map[string]any{"implementer": map[string]any{"from": from, "to": ""}}}
	}
	minor := func(from, to bool) audit.Entry {
		return audit.Entry{Action: audit.ActionEdited, Details: map[string]any{"fields": []any{"minor"}, "minor": map[string]any{"from": from, "to": to}}}
	}
	reopened := audit.Entry{Action: audit.ActionReopened, Details: map[string]any{"from": "closed", "to": "open"}}
	cases := []struct {
		name        string
		implementer string
		minor       bool
		later       []audit.Entry
		wantImpl    string
		wantMinor   bool
	}{
		{"nothing later", "ses_a", true, nil, "ses_a", true},
		{"reopened and started later", "ses_a", false, []audit.Entry{reopened, started("", "ses_a")}, "", false},
		{"handed over twice", "ses_c", false, []audit.Entry{unstarted("ses_a"), started("", "ses_b"), unstarted("ses_b"), started("", "ses_c")}, "ses_a", false},
		{"marked minor later", "", true, []audit.Entry{minor(false, true)}, "", false},
		{"a link's to is not a field change", "ses_a", false, []audit.Entry{{Action: audit.ActionLinked, Details: map[string]any{"kind": "blocked_by", "to": "td-k3x9qa"}}}, "ses_a", false},
		{"a field change with no from is left alone", "ses_a", false, []audit.Entry{{Action: audit.ActionStarted, Details: map[string]any{"implementer": map[string]any{"to": "ses_a"}}}}, "ses_a", false},
	}
	for _, c := range cases {
		is := &repo.Issue{Issue: domain.Issue{ID: "td-k3x9qa", Implementer: c.implementer, Minor: c.minor}}
		got := issueBefore(is, c.later)
		if got.Implementer != c.wantImpl || got.Minor != c.wantMinor {
			t.Errorf("%s: implementer %q minor %v, want %q and %v", c.name, got.Implementer, got.Minor, c.wantImpl, c.wantMinor)
		}
		if is.Implementer != c.implementer || is.Minor != c.minor {
			t.Errorf("%s: the issue itself was changed", c.name)
		}
	}
}

func TestMergedLinks(t *testing.T) {
	l := func(spec string) []domain.Link {
		var out []domain.Link
		for _, f := range strings.Fields(spec) {
			kind, to, _ := strings.Cut(f, ":")
			out = append(out, domain.Link{Kind: domain.LinkKind(kind), To: to})
		}
		return out
	}
	cases := []struct{ name, base, ours, theirs, want string }{
		{"unchanged", "blocked_by:a", "blocked_by:a", "blocked_by:a", "blocked_by:a"},
		{"ours added", "", "blocked_by:a", "", "blocked_by:a"},
		{"theirs added", "", "", "blocked_by:b", "blocked_by:b"},
		{"both added", "", "blocked_by:a", "child_of:b", "blocked_by:a child_of:b"},
		{"the same added on both", "", "blocked_by:a", "blocked_by:a", "blocked_by:a"},
		{"theirs removed, ours changed something else", "blocked_by:a", "blocked_by:a relates_to:c", "", "relates_to:c"},
		{"ours removed", "blocked_by:a", "", "blocked_by:a", ""},
		{"removed on one side, added on the other", "blocked_by:a", "blocked_by:b", "blocked_by:a child_of:c", "blocked_by:b child_of:c"},
	}
	for _, c := range cases {
		got := mergedLinks(l(c.base), l(c.ours), l(c.theirs))
		var words []string
		for _, x := range got {
			words = append(words, string(x.Kind)+":"+x.To)
		}
		if strings.Join(words, " ") != c.want {
			t.Errorf("%s: %v, want %s", c.name, words, c.want)
		}
	}
}

// TestCriteriaAt: the criteria an issue had at a decision td check
// re-decides are the committed file's, with what later ledger entries did
// to them undone; only criteria not dropped count.
func TestCriteriaAt(t *testing.T) {
	file := func(criteria ...string) *repo.Issue {
		body := "---\nid: td-k3x9qa\ntitle: Sign in\nstatus: closed\n---\n\n## Acceptance criteria\n\n"
		for _, c := range criteria {
			body += c + "\n"
		}
		is, err := repo.ParseIssue(".todos/issues/td-k3x9qa.md", "td-k3x9qa", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return is
	}
	e := func(action, text string) audit.Entry {
		return audit.Entry{Action: action, Details: map[string]any{"text": text}}
	}
	cases := []struct {
		name         string
		is           *repo.Issue
		prior, later []audit.Entry
		want         int
	}{
		{"none", file(), nil, nil, 0},
		{"as the file has them", file("- [x] A", "- [ ] B"), nil, nil, 2},
		{"a dropped one does not count", file("- [x] A", "- [-] B"), nil, nil, 1},
		{"added after the decision", file("- [x] A"), nil, []audit.Entry{e(audit.ActionCriterionAdded, "A")}, 0},
		{"dropped after the decision", file("- [-] A"), []audit.Entry{e(audit.ActionCriterionAdded, "A")}, []audit.Entry{e(audit.ActionCriterionDropped, "A")}, 1},
		{"added and dropped after the decision", file("- [-] A"), nil, []audit.Entry{e(audit.ActionCriterionAdded, "A"), e(audit.ActionCriterionDropped, "A")}, 0},
		{"reopened after it was dropped before", file("- [ ] A"),
			[]audit.Entry{e(audit.ActionCriterionAdded, "A"), e(audit.ActionCriterionDropped, "A")}, []audit.Entry{e(audit.ActionCriterionReopened, "A")}, 0},
		{"reopened after it was done before", file("- [ ] A"),
			[]audit.Entry{e(audit.ActionCriterionAdded, "A"), e(audit.ActionCriterionCompleted, "A")}, []audit.Entry{e(audit.ActionCriterionReopened, "A")}, 1},
	}
	for _, c := range cases {
		if got := criteriaAt(c.is, c.prior, c.later); got != c.want {
			t.Errorf("%s: %d criteria, want %d", c.name, got, c.want)
		}
	}
}
