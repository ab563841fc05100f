package command

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
)

func TestBoardOptions(t *testing.T) {
	testParse(t, (*runner).boardCommand, []parseCase[BoardOptions]{
		{name: "default", argv: []string{"board"}, want: BoardOptions{Filter: board.Filter{RecentDays: 7}, Limit: -1}},
		{name: "filters", argv: []string{"board", "-l", "auth,ui", "-l", "api", "-a", "bob", "--epic", "a0b", "--days", "14", "-n", "3"},
			want: BoardOptions{Filter: board.Filter{Labels: []string{"auth", "ui", "api"}, Assignee: "bob", Epic: "a0b", RecentDays: 14}, Limit: 3}},
		{name: "json", argv: []string{"board", "--json"}, json: true, want: BoardOptions{Filter: board.Filter{RecentDays: 7}, Limit: -1}},
		{name: "all cards", argv: []string{"board", "--limit", "0"}, want: BoardOptions{Filter: board.Filter{RecentDays: 7}, Limit: 0}},
		{name: "an empty epic", argv: []string{"board", "--epic", " "}, usage: true},
		{name: "no days", argv: []string{"board", "--days", "0"}, usage: true},
		{name: "a negative limit", argv: []string{"board", "--limit", "-1"}, usage: true},
		{name: "argument", argv: []string{"board", "open"}, usage: true},
	})
}

// TestBoardOnATerminal runs td board as if stdout were a terminal of
// COLUMNS columns: wide enough, the columns stand side by side and a
// column shows a page of cards; too narrow, it prints the sections.
func TestBoardOnATerminal(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "GIT_AUTHOR_NAME":
			return "Op"
		case "GIT_AUTHOR_EMAIL":
			return "op@example.com"
		case "TD_NOW":
			return "2026-11-21T10:00:00Z"
		}
		return ""
	}
	if _, err := repo.Init(dir, repo.InitOptions{NoGit: true, Options: repo.Options{Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }, Env: env}}); err != nil {
		t.Fatal(err)
	}
	for i := range boardPage + 2 {
		if code := RunIn(dir, []string{"td", "create", "Issue " + strings.Repeat("x", i)}, nil, io.Discard, io.Discard, env); code != 0 {
			t.Fatalf("td create exited %d", code)
		}
	}
	board := func(columns string, o BoardOptions) string {
		var out bytes.Buffer
		r := &runner{st: &streams{out: &out, errOut: &out, tty: true}, dir: dir, getenv: func(k string) string {
			if k == "COLUMNS" {
				return columns
			}
			return env(k)
		}}
		o.Filter.RecentDays = 7
		if err := r.runBoard(&o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	wide := board("100", BoardOptions{Limit: -1})
	if !strings.HasPrefix(wide, "Open (17)           In progress (0)     Blocked (0)         In review (0)       Closed 7d (0)\n") {
		t.Errorf("100 columns:\n%s", wide)
	}
	if !strings.Contains(wide, "\n+ 2 more\n") || strings.Count(wide, "td-") != boardPage {
		t.Errorf("a page of %d cards and how many more, got:\n%s", boardPage, wide)
	}
	if all := board("100", BoardOptions{Limit: 0}); strings.Count(all, "td-") != boardPage+2 {
		t.Errorf("--limit 0 on a terminal shows every card, got:\n%s", all)
	}
	narrow := board("60", BoardOptions{Limit: -1})
	if !strings.HasPrefix(narrow, "Open (17)\n  td-") || !strings.Contains(narrow, "\n  2 more: td board --limit 0 shows all\n") {
		t.Errorf("60 columns:\n%s", narrow)
	}
}
