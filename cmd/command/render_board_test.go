package command

import (
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/board"
)

// sampleBoard is a board with a card of every kind: a long title, a wide
// script, an assignee, progress, open criteria, an epic's children, a
// claim held elsewhere, an empty column and one longer than a page.
func sampleBoard() *board.Board {
	return &board.Board{RecentDays: 7, Columns: []board.Column{
		{Key: "open", Title: "Open", Cards: []board.Card{
			{ID: "td-a0b1c2", Title: "Accounts", Priority: "P1", Type: "epic", Status: "open", Labels: []string{"auth"}, Children: 5, ChildrenClosed: 3},
			{ID: "td-d3e4f5", Title: "Sign in with GitHub, GitLab and any OpenID provider", Priority: "P2", Type: "feature", Status: "open",
				Assignee: "Bob Stone", Done: 3, Total: 7, OpenCriteria: 2},
		}},
		{Key: "in_progress", Title: "In progress", Cards: []board.Card{
			{ID: "td-g6h7i8", Title: "ログイン画面の文言を直す", Priority: "P0", Type: "bug", Status: "in_progress",
				Assignee: "claude agent of Ann", Done: 1, Total: 2, OpenCriteria: 1, Claim: "claimed by Ann in ../app-2 until 12:00 UTC"},
		}},
		{Key: "blocked", Title: "Blocked", Cards: []board.Card{}},
		{Key: "in_review", Title: "In review", Cards: []board.Card{
			{ID: "td-j9k0l1", Title: "Rate-limit the login endpoint", Priority: "P2", Type: "task", Status: "in_review", Done: 4, Total: 4},
			{ID: "td-m2n3o4", Title: "Audit log", Priority: "P3", Type: "task", Status: "in_review"},
			{ID: "td-p5q6r7", Title: "Session expiry", Priority: "P3", Type: "task", Status: "in_review"},
		}},
		{Key: "closed", Title: "Closed, last 7 days", Cards: []board.Card{
			{ID: "td-s8t9u0", Title: "Sign out", Priority: "P4", Type: "chore", Status: "closed", Done: 2, Total: 2},
		}},
	}}
}

// TestBoardColumns lays the sample board out at fixed terminal widths;
// escape codes show as ^[ so that the coloured layout reads too.
func TestBoardColumns(t *testing.T) {
	for _, tc := range []struct {
		name         string
		width, limit int
		color        bool
		want         string
	}{
		{"80 columns, two cards a column", 80, 2, false, `
Open (2)        Started (1)     Blocked (0)     In review (3)   Closed 7d (1)
──────────────  ──────────────  ──────────────  ──────────────  ──────────────
td-a0b1c2 P1    td-g6h7i8 P0    none            td-j9k0l1 P2    td-s8t9u0 P4
Accounts        ログイン画面の                  Rate-limit the  Sign out
children 3/5    文言を直す                      login endpoint  2/2
                claude agent…                   4/4
td-d3e4f5 P2    1/2
Sign in with    1 open crit.                    td-m2n3o4 P3
GitHub, GitLa…  claimed by Ann                  Audit log
Bob Stone       in ../app-2
3/7             until 12:00                     + 1 more
2 open crit.    UTC
`},
		{"160 columns, two cards a column", 160, 2, false, `
Open (2)                        In progress (1)                 Blocked (0)                     In review (3)                   Closed, last 7 days (1)
──────────────────────────────  ──────────────────────────────  ──────────────────────────────  ──────────────────────────────  ──────────────────────────────
td-a0b1c2 P1                    td-g6h7i8 P0                    none                            td-j9k0l1 P2                    td-s8t9u0 P4
Accounts                        ログイン画面の文言を直す                                        Rate-limit the login endpoint   Sign out
children 3/5 closed             claude agent of Ann                                             4/4                             2/2
                                1/2
td-d3e4f5 P2                    1 open criterion                                                td-m2n3o4 P3
Sign in with GitHub, GitLab     claimed by Ann in ../app-2                                      Audit log
and any OpenID provider         until 12:00 UTC
Bob Stone                                                                                       + 1 more
3/7
2 open criteria
`},
		{"the narrowest, every card", boardMinWidth, 0, false, `
Open (2)      Started (1)   Blocked (0)   Review (3)    Closed (1)
────────────  ────────────  ────────────  ────────────  ────────────
td-a0b1c2 P1  td-g6h7i8 P0  none          td-j9k0l1 P2  td-s8t9u0 P4
Accounts      ログイン画面                Rate-limit    Sign out
children 3/5  の文言を直す                the login e…  2/2
              claude agen…                4/4
td-d3e4f5 P2  1/2
Sign in with  1 open crit.                td-m2n3o4 P3
GitHub, Git…  claimed by                  Audit log
Bob Stone     Ann in
3/7           ../app-2                    td-p5q6r7 P3
2 open crit.  until 12:00…                Session
                                          expiry
`},
		{"80 columns in colour: progress bars", 80, 0, true, `
^[1mOpen (2)^[0m        ^[1m^[33mStarted (1)^[0m     ^[1m^[31mBlocked (0)^[0m     ^[1m^[36mIn review (3)^[0m   ^[1m^[32mClosed 7d (1)^[0m
^[2m──────────────^[0m  ^[2m──────────────^[0m  ^[2m──────────────^[0m  ^[2m──────────────^[0m  ^[2m──────────────^[0m
^[1mtd-a0b1c2^[0m ^[33mP1^[0m    ^[1mtd-g6h7i8^[0m ^[31mP0^[0m    ^[2mnone^[0m            ^[1mtd-j9k0l1^[0m P2    ^[1mtd-s8t9u0^[0m P4
Accounts        ログイン画面の                  Rate-limit the  Sign out
children 3/5    文言を直す                      login endpoint  2/2 ^[32m██████████^[0m
                claude agent…                   4/4 ^[32m██████████^[0m
^[1mtd-d3e4f5^[0m P2    1/2 ^[32m█████^[0m^[2m░░░░░^[0m
Sign in with    1 open crit.                    ^[1mtd-m2n3o4^[0m P3
GitHub, GitLa…  ^[2mclaimed by Ann^[0m                  Audit log
Bob Stone       ^[2min ../app-2^[0m
3/7 ^[32m████^[0m^[2m░░░░░░^[0m  ^[2muntil 12:00^[0m                     ^[1mtd-p5q6r7^[0m P3
2 open crit.    ^[2mUTC^[0m                             Session expiry
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &streams{color: tc.color}
			got := strings.ReplaceAll(st.boardColumns(sampleBoard(), tc.width, tc.limit), "\x1b[", "^[")
			if want := strings.TrimPrefix(tc.want, "\n"); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if tc.color {
				return
			}
			for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if w := textWidth(line); w > tc.width {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, w, tc.width, line)
				}
				if strings.HasSuffix(line, " ") {
					t.Errorf("line %d ends in a space: %q", i+1, line)
				}
			}
		})
	}
}

func TestBoardSections(t *testing.T) {
	want := `Open (2)
  td-a0b1c2  P1  epic     Accounts  [auth]
      children 3/5 closed
  td-d3e4f5  P2  feature  Sign in with GitHub, GitLab and any OpenID provider
      Bob Stone; 3/7 done; 2 open criteria

In progress (1)
  td-g6h7i8  P0  bug      ログイン画面の文言を直す
      claude agent of Ann; 1/2 done; 1 open criterion
      claimed by Ann in ../app-2 until 12:00 UTC

Blocked (0)
  none

In review (3)
  td-j9k0l1  P2  task     Rate-limit the login endpoint
      4/4 done
  td-m2n3o4  P3  task     Audit log
  1 more: td board --limit 0 shows all

Closed, last 7 days (1)
  td-s8t9u0  P4  chore    Sign out
      2/2 done
`
	if got := (&streams{}).boardSections(sampleBoard(), 2); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	empty := &board.Board{RecentDays: 7, Columns: []board.Column{{Key: "open", Title: "Open", Cards: []board.Card{}}}}
	for _, got := range []string{(&streams{}).boardSections(empty, 0), (&streams{}).boardColumns(empty, 80, 0)} {
		if got != boardEmpty {
			t.Errorf("an empty board: %q", got)
		}
	}
}

func TestWrapAndFit(t *testing.T) {
	for _, tc := range []struct {
		text string
		w, n int
		want []string
	}{
		{"short", 10, 2, []string{"short"}},
		{"exactly ten", 11, 1, []string{"exactly ten"}},
		{"two words here", 9, 2, []string{"two words", "here"}},
		{"a verylongwordthatbreaks", 8, 3, []string{"a verylo", "ngwordth", "atbreaks"}},
		{"a verylongwordthatbreaksoff", 8, 3, []string{"a verylo", "ngwordth", "atbreak…"}},
		{"one verylongword", 8, 3, []string{"one", "verylong", "word"}},
		{"Rate-limit the login endpoint", 14, 2, []string{"Rate-limit the", "login endpoint"}},
		{"cut at the end of it", 8, 1, []string{"cut at…"}},
		{"漢字漢字漢字", 5, 2, []string{"漢字", "漢字…"}},
		{"", 5, 2, nil},
	} {
		if got := wrap(tc.text, tc.w, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", tc.text, tc.w, tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text  string
		w     int
		want  string
		width int
	}{
		{"fits", 4, "fits", 4},
		{"too long", 5, "too…", 4},
		{"漢字漢字", 5, "漢字…", 5},
		{"e\u0301te\u0301", 3, "e\u0301te\u0301", 3},
		{"e\u0301te\u0301s", 3, "e\u0301t…", 3},
	} {
		if got, w := fit(tc.text, tc.w); got != tc.want || w != tc.width {
			t.Errorf("fit(%q, %d) = %q (%d), want %q (%d)", tc.text, tc.w, got, w, tc.want, tc.width)
		}
	}
}
