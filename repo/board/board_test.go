package board_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/links"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/todos"
)

// fixture files a small project: an epic with a child (which has a child
// of its own) and a closed child, and issues in every other status.
type fixture struct {
	s                                              *repo.Store
	epic, open, grandchild, started, blocked, shut string
	other                                          string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	create := func(title, typ, prio string, labels ...string) string {
		t.Helper()
		is, err := issues.Create(s, se, issues.CreateOptions{Title: title, Type: typ, Priority: prio, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		return is.ID
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f := fixture{s: s}
	f.epic = create("Accounts", "epic", "P2")
	f.open = create("Sign in", "feature", "P1", "ui", "auth")
	f.grandchild = create("Sign-in button", "task", "P3", "ui")
	f.started = create("Session cookie", "task", "P0", "auth")
	f.blocked = create("OAuth app", "task", "P2")
	f.shut = create("Login page copy", "chore", "P4", "ui")
	f.other = create("Unrelated", "bug", "P4")
	for _, l := range [][2]string{{f.open, f.epic}, {f.shut, f.epic}, {f.grandchild, f.open}} {
		must(links.Link(s, se, l[0], string(domain.ChildOf), l[1]))
	}
	must(todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoSet, Issue: f.open, Items: []string{"Form", "Handler", "Tests"}}))
	must(todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoAdd, Issue: f.open, Kind: domain.KindCriterion, Items: []string{"A user signs in", "A bad password is refused"}}))
	must(todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoDone, Issue: f.open, Targets: []string{"Form", "A user signs in"}}))
	must(todos.Apply(s, se, todos.TodoRequest{Op: todos.TodoDrop, Issue: f.open, Targets: []string{"Tests"}}))
	must(issues.Start(s, se, f.started))
	assignee := "session:" + se.ID
	_, _, err := issues.Edit(s, se, f.started, issues.EditOptions{Assignee: &assignee})
	must(nil, err)
	elsewhere := "session:ses_zzzzzzzz" // another clone's session: no file here
	_, _, err = issues.Edit(s, se, f.blocked, issues.EditOptions{Assignee: &elsewhere})
	must(nil, err)
	must(issues.Block(s, se, f.blocked, issues.TransitionOptions{Reason: "waiting for the provider"}))
	must(issues.Close(s, se, f.shut, issues.TransitionOptions{}))
	return f
}

// layout is a board as "key: id id; key: ..." for comparing.
func layout(b *board.Board) string {
	var parts []string
	for _, c := range b.Columns {
		var ids []string
		for _, card := range c.Cards {
			ids = append(ids, card.ID)
		}
		parts = append(parts, c.Key+":"+strings.Join(ids, " "))
	}
	return strings.Join(parts, "; ")
}

func TestBuildColumns(t *testing.T) {
	f := newFixture(t)
	later := repotest.Clock.Add(8 * 24 * time.Hour)
	for _, tc := range []struct {
		name   string
		filter board.Filter
		want   string
	}{
		{"everything", board.Filter{},
			fmt.Sprintf("open:%s %s %s %s; in_progress:%s; blocked:%s; in_review:; closed:%s", f.open, f.epic, f.grandchild, f.other, f.started, f.blocked, f.shut)},
		{"closed long ago", board.Filter{Now: later},
			fmt.Sprintf("open:%s %s %s %s; in_progress:%s; blocked:%s; in_review:; closed:", f.open, f.epic, f.grandchild, f.other, f.started, f.blocked)},
		{"a longer look back", board.Filter{Now: later, RecentDays: 9},
			fmt.Sprintf("open:%s %s %s %s; in_progress:%s; blocked:%s; in_review:; closed:%s", f.open, f.epic, f.grandchild, f.other, f.started, f.blocked, f.shut)},
		{"one label", board.Filter{Labels: []string{"ui"}},
			fmt.Sprintf("open:%s %s; in_progress:; blocked:; in_review:; closed:%s", f.open, f.grandchild, f.shut)},
		{"every label", board.Filter{Labels: []string{"ui", "auth"}},
			fmt.Sprintf("open:%s; in_progress:; blocked:; in_review:; closed:", f.open)},
		{"assignee by name", board.Filter{Assignee: "op"},
			fmt.Sprintf("open:; in_progress:%s; blocked:; in_review:; closed:", f.started)},
		{"an epic, at every depth", board.Filter{Epic: f.epic[:6]},
			fmt.Sprintf("open:%s %s; in_progress:; blocked:; in_review:; closed:%s", f.open, f.grandchild, f.shut)},
		{"an epic and a label", board.Filter{Epic: f.epic, Labels: []string{"auth"}},
			fmt.Sprintf("open:%s; in_progress:; blocked:; in_review:; closed:", f.open)},
		{"nobody", board.Filter{Assignee: "nobody"},
			"open:; in_progress:; blocked:; in_review:; closed:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := board.Build(f.s, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := layout(b); got != tc.want {
				t.Errorf("board\n got %s\nwant %s", got, tc.want)
			}
			for _, c := range b.Columns {
				if c.Cards == nil {
					t.Errorf("column %s has nil cards: JSON would say null", c.Key)
				}
			}
		})
	}
}

func TestBuildCards(t *testing.T) {
	f := newFixture(t)
	b, err := board.Build(f.s, board.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	cards := map[string]board.Card{}
	for _, c := range b.Columns {
		for _, card := range c.Cards {
			cards[card.ID] = card
		}
	}
	// Form done, Handler open, Tests dropped; one criterion of two met.
	open := cards[f.open]
	if open.Done != 2 || open.Total != 4 || open.OpenCriteria != 1 {
		t.Errorf("progress of %s: done %d of %d, %d open criteria; want 2 of 4, 1", f.open, open.Done, open.Total, open.OpenCriteria)
	}
	if open.Children != 1 || open.ChildrenClosed != 0 {
		t.Errorf("children of %s: %d/%d closed, want 0/1", f.open, open.ChildrenClosed, open.Children)
	}
	if !slices.Equal(open.Labels, []string{"ui", "auth"}) || open.Title != "Sign in" || open.Priority != "P1" || open.Type != "feature" || open.Status != "open" {
		t.Errorf("card %+v", open)
	}
	if e := cards[f.epic]; e.Children != 2 || e.ChildrenClosed != 1 {
		t.Errorf("children of the epic: %d/%d closed, want 1/2", e.ChildrenClosed, e.Children)
	}
	if s := cards[f.started]; s.Assignee != "Op" || s.Claim != "" {
		t.Errorf("started card: assignee %q, claim %q; want the person's name and no claim outside git", s.Assignee, s.Claim)
	}
	if c := cards[f.blocked]; c.Assignee != "ses_zzzzzzzz" {
		t.Errorf("a session without a file is named by its ID, got %q", c.Assignee)
	}
	if c := cards[f.shut]; !c.Updated.Equal(repotest.Clock) {
		t.Errorf("closed card updated %v, want %v", c.Updated, repotest.Clock)
	}
	if c := cards[f.other]; c.Labels == nil || c.Done != 0 || c.Total != 0 || c.Assignee != "" {
		t.Errorf("bare card %+v", c)
	}
	if b.RecentDays != board.DefaultRecentDays {
		t.Errorf("recent days %d", b.RecentDays)
	}
}

func TestBuildRefusals(t *testing.T) {
	f := newFixture(t)
	if _, err := board.Build(f.s, board.Filter{Epic: "td-zzzzzz"}); repo.CodeOf(err) != repo.CodeNotFound {
		t.Errorf("an unknown epic: %v, want not_found", err)
	}
	if _, err := board.Build(f.s, board.Filter{RecentDays: -1}); repo.CodeOf(err) != repo.CodeInvalid {
		t.Errorf("negative days: %v, want invalid_argument", err)
	}
}

// TestBuildFromTheCache builds the board twice: the second time every issue
// comes from the index cache, which must carry the checklist's counts.
func TestBuildFromTheCache(t *testing.T) {
	f := newFixture(t)
	first, err := board.Build(f.s, board.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := repo.Open(f.s.Root, repo.Options{Now: func() time.Time { return repotest.Clock }})
	if err != nil {
		t.Fatal(err)
	}
	second, err := board.Build(s, board.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(first.Columns) != fmt.Sprint(second.Columns) {
		t.Errorf("from the files:\n%v\nfrom the cache:\n%v", first.Columns, second.Columns)
	}
}

func TestClaimText(t *testing.T) {
	cs := &claims.Set{Here: "/src/app", HereHost: "devbox"}
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	bob := domain.Actor{Identity: "Bob Stone <bob@example.com>"}
	claim := func(a domain.Actor, host, wt string, expires time.Time) *domain.Claim {
		return &domain.Claim{Issue: "td-abc123", Session: "ses_12345678", Actor: a, Host: host, Worktree: wt, Expires: expires}
	}
	for _, tc := range []struct {
		name string
		c    *domain.Claim
		want string
	}{
		{"another work tree", claim(bob, "devbox", "/src/app-2", now.Add(2*time.Hour)), "claimed by Bob Stone in ../app-2 until 12:00 UTC"},
		{"this work tree", claim(bob, "devbox", "/src/app", now.Add(2*time.Hour)), "claimed by Bob Stone in this work tree until 12:00 UTC"},
		{"another machine", claim(bob, "laptop", "/home/bob/app", now.Add(2*time.Hour)), "claimed by Bob Stone on laptop in /home/bob/app until 12:00 UTC"},
		{"tomorrow", claim(bob, "devbox", "/src/app-2", now.Add(20*time.Hour)), "claimed by Bob Stone in ../app-2 until 2026-11-22 06:00 UTC"},
		{"lease ended", claim(bob, "devbox", "/src/app-2", now.Add(-time.Minute)), "claimed by Bob Stone in ../app-2, lease ended 09:59 UTC"},
		{"an agent", claim(domain.Actor{Identity: "Bob Stone <bob@example.com>", Agent: "claude"}, "devbox", "/src/app-2", now.Add(time.Hour)),
			"claimed by claude agent of Bob Stone in ../app-2 until 11:00 UTC"},
		{"an email only", claim(domain.Actor{Identity: "<bob@example.com>"}, "devbox", "/src/app-2", now.Add(time.Hour)),
			"claimed by bob@example.com in ../app-2 until 11:00 UTC"},
	} {
		if got := board.ClaimText(cs, tc.c, now); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
