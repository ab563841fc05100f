package command

import (
	"testing"

	"github.com/tdproject/td/repo/issues"
)

func TestEditOptions(t *testing.T) {
	ptr := func(s string) *string { return &s }
	no, labels := false, []string{"a", "b"}
	testParse(t, (*runner).editCommand, []parseCase[EditOptions]{
		{name: "title and priority", argv: []string{"edit", "k3x", "--title", "New", "-p", "P1"},
			want: EditOptions{Issue: "k3x", Edit: issues.EditOptions{Title: ptr("New"), Priority: ptr("P1")}}},
		{name: "clear assignee", argv: []string{"edit", "k3x", "--assignee", "", "--session", "s-1"},
			want: EditOptions{Session: "s-1", Issue: "k3x", Edit: issues.EditOptions{Assignee: ptr("")}}},
		{name: "labels and minor", argv: []string{"edit", "k3x", "-l", "a", "-l", "b", "--add-label", "c", "--remove-label", "d", "--minor=false"},
			want: EditOptions{Issue: "k3x", Edit: issues.EditOptions{Labels: &labels, AddLabels: []string{"c"}, RemoveLabels: []string{"d"}, Minor: &no}}},
		{name: "description file", argv: []string{"edit", "k3x", "--description-file", "-"}, stdin: "new text\n",
			want: EditOptions{Issue: "k3x", Edit: issues.EditOptions{Description: ptr("new text\n")}}},
		{name: "append", argv: []string{"edit", "k3x", "--append", "more"}, want: EditOptions{Issue: "k3x", Edit: issues.EditOptions{Append: "more"}}},
		{name: "nothing to change", argv: []string{"edit", "k3x"}, usage: true},
		{name: "no id", argv: []string{"edit", "--title", "x"}, usage: true},
		{name: "both descriptions", argv: []string{"edit", "k3x", "-d", "x", "--description-file", "-"}, usage: true},
	})
}
