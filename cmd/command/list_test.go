package command

import (
	"testing"

	"github.com/tdproject/td/repo"
)

func TestListOptions(t *testing.T) {
	testParse(t, (*runner).listCommand, []parseCase[ListOptions]{
		{name: "default", argv: []string{"list"}, want: ListOptions{}},
		{name: "filters", argv: []string{"ls", "--status", "open,in_progress", "--status", "blocked", "--all", "-t", "bug", "-p", "P0, P1", "-l", "auth", "-a", "me"},
			want: ListOptions{Filter: repo.Filter{Statuses: []string{"open", "in_progress", "blocked"}, All: true, Types: []string{"bug"},
				Priorities: []string{"P0", "P1"}, Labels: []string{"auth"}, Assignee: "me"}}},
		{name: "reviewable", argv: []string{"list", "--reviewable", "--session", "s-1"}, want: ListOptions{Reviewable: true, Session: "s-1"}},
		{name: "argument", argv: []string{"list", "open"}, usage: true},
	})
}
