package review

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
	"github.com/tdproject/td/repo/todos"
)

// logOrder renders a merged log as "L:action" and "C:hash" tokens.
func logOrder(entries []LogEntry) string {
	var out []string
	for _, e := range entries {
		if e.Ledger != nil {
			out = append(out, "L:"+e.Ledger.Action)
		} else {
			out = append(out, "C:"+e.Commit.Hash)
		}
	}
	return strings.Join(out, " ")
}

func TestMergeLogPutsEachEntryBeforeTheCommitThatRecordedIt(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	entry := func(sec int, action string) audit.Entry {
		return audit.Entry{TS: t0.Add(time.Duration(sec) * time.Second), Session: "ses_11111111", Action: action}
	}
	created, commented, started, late := entry(0, "created"), entry(0, "commented"), entry(0, "started"), entry(0, "blocked")
	early := entry(-60, "edited")
	commit := func(hash string, sec int, recorded ...audit.Entry) *LogCommit {
		return &LogCommit{Hash: hash, Time: t0.Add(time.Duration(sec) * time.Second), ledgerLines: recorded}
	}
	for _, tc := range []struct {
		name      string
		ledger    []audit.Entry
		commits   []*LogCommit
		committed []audit.Entry // HEAD's ledger
		want      string
	}{
		{"one commit per action in one second",
			[]audit.Entry{created, commented, started},
			[]*LogCommit{commit("c1", 0, created), commit("todo", 0), commit("c2", 0, commented), commit("c3", 0, started)},
			[]audit.Entry{created, commented, started},
			"L:created C:c1 C:todo L:commented C:c2 L:started C:c3"},
		{"entries nobody committed come after the second's commits",
			[]audit.Entry{created, late},
			[]*LogCommit{commit("c1", 0, created), commit("c2", 0)},
			[]audit.Entry{created},
			"L:created C:c1 C:c2 L:blocked"},
		{"entries committed before the listed commits come before them",
			[]audit.Entry{created, commented},
			[]*LogCommit{commit("todo", 0), commit("c2", 0, commented)},
			[]audit.Entry{created, commented},
			"L:created C:todo L:commented C:c2"},
		{"one commit for several entries, later",
			[]audit.Entry{early, created, commented},
			[]*LogCommit{commit("c1", 3600, early, created, commented)},
			[]audit.Entry{early, created, commented},
			"L:edited L:created L:commented C:c1"},
		{"time first: an earlier commit comes before a later entry",
			[]audit.Entry{created},
			[]*LogCommit{commit("old", -120), commit("c1", 0, created)},
			[]audit.Entry{created},
			"C:old L:created C:c1"},
		{"no git", []audit.Entry{created, commented}, nil, nil, "L:created L:commented"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := logOrder(mergeLog(tc.ledger, tc.commits, tc.committed)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLedgerDelta(t *testing.T) {
	line := func(sec int, action string) string {
		return fmt.Sprintf(`{"ts":"2026-11-21T10:00:%02dZ","session":"ses_11111111","action":%q}`, sec, action)
	}
	before := line(0, "created") + "\n" + line(1, "commented") + "\n"
	var c LogCommit
	c.ledgerDelta([]byte(before), []byte(before+line(2, "started")+"\nnot json\n"))
	if strings.Join(c.LedgerAdded, ",") != "started,?" || c.LedgerRemoved != 0 || len(c.ledgerLines) != 1 {
		t.Errorf("appended: %+v", c)
	}
	var d LogCommit
	d.ledgerDelta([]byte(before), []byte(line(0, "created")+"\n"))
	if len(d.LedgerAdded) != 0 || d.LedgerRemoved != 1 {
		t.Errorf("a line removed: %+v", d)
	}
	if got := d.Summary(); got != "ledger -1 (lines removed from an append-only ledger)" {
		t.Errorf("summary %q", got)
	}
	// A union merge that interleaves both sides' lines adds only the new ones.
	var m LogCommit
	m.ledgerDelta([]byte(before), []byte(line(0, "created")+"\n"+line(5, "blocked")+"\n"+line(1, "commented")+"\n"))
	if strings.Join(m.LedgerAdded, ",") != "blocked" || m.LedgerRemoved != 0 {
		t.Errorf("interleaved: %+v", m)
	}
}

func TestLogCommitSummary(t *testing.T) {
	issue, ledger := ".todos/issues/td-aaaaaa.md", ".todos/history/td-aaaaaa.jsonl"
	for _, tc := range []struct {
		c    LogCommit
		want string
	}{
		{LogCommit{Files: []string{issue, ledger}, Changes: []IssueEvent{{Kind: EventStatus, From: "open", To: "in_progress"}}, LedgerAdded: []string{"started"}},
			"status open -> in_progress; ledger +1: started"},
		{LogCommit{Files: []string{issue}}, "issue file touched, nothing td tracks changed"},
		{LogCommit{Files: []string{issue}, Unreadable: "the later version, line 3: bad"}, "issue file unreadable: the later version, line 3: bad"},
		{LogCommit{Files: []string{ledger}, LedgerAdded: []string{"commented", "commented"}}, "ledger +2: commented, commented"},
		{LogCommit{Files: []string{ledger}}, "no change td tracks"},
		// A merge: the change an outcome accounts for is told once, by it.
		{LogCommit{Files: []string{issue, ledger}, Changes: []IssueEvent{{Kind: EventPriority, From: "P3", To: "P1"}, {Kind: EventType, From: "task", To: "bug"}},
			Merge:       []MergeOutcome{{Kind: OutcomeResolved, key: EventPriority, What: "priority", Kept: SideTheirs, Value: "P1", Ours: "P3", Theirs: "P1"}},
			LedgerAdded: []string{"edited"}},
			"type task -> bug; resolved: priority P1 (theirs) over P3 (ours); ledger +1: edited"},
		{LogCommit{Files: []string{issue, ledger}, Merge: []MergeOutcome{{Kind: OutcomeResolved, key: EventPriority, What: "priority", Kept: SideOurs, Value: "P3", Ours: "P3", Theirs: "P1"}}},
			"resolved: priority P3 (ours) over P1 (theirs)"},
	} {
		if got := tc.c.Summary(); got != tc.want {
			t.Errorf("Summary() = %q, want %q", got, tc.want)
		}
	}
}

func TestLogInAutoMode(t *testing.T) {
	g := repotest.NewAutoStore(t)
	se := repotest.Actor(t, g.S)
	is, err := issues.Create(g.S, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := todos.Apply(g.S, se, todos.TodoRequest{Op: todos.TodoAdd, Issue: is.ID, Items: []string{"Write the callback"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := issues.Comment(g.S, se, is.ID, "state must be verified"); err != nil {
		t.Fatal(err)
	}
	// A ledger line the user has not committed yet (git mode off now).
	g.S.Config.Git.Mode = repo.GitModeOff
	if _, _, err := issues.Comment(g.S, se, is.ID, "not committed"); err != nil {
		t.Fatal(err)
	}
	g.Reopen()
	l, err := Log(g.S, is.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !l.InGit || l.Title != "Sign in" || len(l.Entries) != 6 {
		t.Fatalf("log %+v", l)
	}
	kinds := func(entries []LogEntry) string {
		var out []string
		for _, e := range entries {
			if e.Ledger != nil {
				out = append(out, "ledger "+e.Ledger.Action)
			} else {
				out = append(out, "commit "+e.Commit.Subject+" | "+e.Commit.Summary())
			}
		}
		return strings.Join(out, "\n")
	}
	want := "ledger created\n" +
		"commit td: create " + is.ID + ` | opened: "Sign in"; ledger +1: created` + "\n" +
		"commit td: update the todos of " + is.ID + ` | todo added: "Write the callback" (in_progress)` + "\n" +
		"ledger commented\n" +
		"commit td: comment on " + is.ID + " | ledger +1: commented\n" +
		"ledger commented"
	if got := kinds(l.Entries); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
	c := l.Entries[1].Commit
	if c.Author.Name != "Op" || c.Trailers[0].Key != repo.TrailerSession || c.Trailers[0].Value != se.ID || len(c.Files) != 2 {
		t.Errorf("create commit %+v", c)
	}
	// limit keeps the most recent entries.
	l, err = Log(g.S, is.ID, 2)
	if err != nil || kinds(l.Entries) != "commit td: comment on "+is.ID+" | ledger +1: commented\nledger commented" {
		t.Errorf("limit 2: %s %v", kinds(l.Entries), err)
	}
	l, err = Log(g.S, is.ID, 5)
	if err != nil || !strings.HasPrefix(kinds(l.Entries), "commit td: create") {
		t.Errorf("limit 5: %s %v", kinds(l.Entries), err)
	}
}

func TestLogOutsideGitIsTheLedger(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	is, err := issues.Create(s, se, issues.CreateOptions{Title: "Sign in"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Log(s, is.ID[:5], 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.InGit || l.ID != is.ID || len(l.Entries) != 1 || l.Entries[0].Ledger.Action != audit.ActionCreated {
		t.Errorf("log %+v", l)
	}
	if _, err := Log(s, "td-zzzzzz", 0); repo.CodeOf(err) != repo.CodeNotFound {
		t.Errorf("unknown issue: %v", err)
	}
}
