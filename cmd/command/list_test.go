package command

import (
	"testing"

	"github.com/tdproject/td/repo"
)

func TestListOptions(t *testing.T) {
	testParse(t, (*runner).listCommand, []parseCase[ListOptions]{
		{name: "default", argv: []string{"list"}, want: ListOptions{Sort: "priority", Limit: -1}},
		{name: "filters", argv: []string{"ls", "--status", "open,in_progress", "--status", "blocked", "--all", "-t", "bug", "-p", "P0, P1", "-l", "auth", "-a", "me"},
			want: ListOptions{Filter: repo.Filter{Statuses: []string{"open", "in_progress", "blocked"}, All: true, Types: []string{"bug"},
				Priorities: []string{"P0", "P1"}, Labels: []string{"auth"}, Assignee: "me"}, Sort: "priority", Limit: -1}},
		{name: "sort, text, limit", argv: []string{"list", "--sort", "title", "--text", "oauth flow", "-n", "5"},
			want: ListOptions{Filter: repo.Filter{Text: "oauth flow"}, Sort: "title", Limit: 5}},
		{name: "a negative limit", argv: []string{"list", "--limit", "-2"}, usage: true},
		{name: "reviewable", argv: []string{"list", "--reviewable", "--session", "s-1"}, want: ListOptions{Reviewable: true, Session: "s-1", Sort: "priority", Limit: -1}},
		{name: "argument", argv: []string{"list", "open"}, usage: true},
	})
}
