package repo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
)

func TestJournalCompaction(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	se := actor(t, g.s)
	is, err := createIssue(g.s, se, "busy")
	if err != nil {
		t.Fatal(err)
	}
	g.commit("issue")
	g.reopen()
	ledger := ".todos/history/" + is.ID + ".jsonl"
	journal := filepath.Join(g.dir, ".todos", "local", journalName)
	// Enough old writes, all ending at what HEAD holds, to pass the
	// compaction size.
	committed, err := os.ReadFile(filepath.Join(g.dir, filepath.FromSlash(ledger)))
	if err != nil {
		t.Fatal(err)
	}
	key, err := journalKey(mustRepo(t, g.s))
	if err != nil {
		t.Fatal(err)
	}
	line := journalLine(key, JournalEntry{After: gitrepo.BlobHash(committed), Before: "-", Size: int64(len(committed))}, ledger)
	var filler strings.Builder
	for filler.Len() < journalCompactAt {
		filler.WriteString(line)
	}
	if err := os.WriteFile(journal, []byte(filler.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := g.s.Update(func(tx *Tx) error {
		return g.s.AppendLedger(tx, is.ID, audit.Entry{TS: g.s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": "one more"}})
	}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	// One write is left: td's last, which starts from HEAD's content.
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], journalHeader) || !strings.Contains(lines[1], " "+gitrepo.BlobHash(committed)+" ") || !strings.HasSuffix(lines[1], " "+ledger) {
		t.Fatalf("compacted journal:\n%s", data)
	}
	if journalBase(data) != int64(len(data)-len(lines[0])-1) {
		t.Errorf("header %q for a body of %d bytes", lines[0], len(data)-len(lines[0])-1)
	}
	// The pending write is still td's: its chain ends at the ledger as it
	// is now.
	if _, err := g.s.StartSession(StartOptions{Agent: "primary", Category: domain.CategoryProject}); err != nil {
		t.Fatal(err)
	}
	now, err := os.ReadFile(filepath.Join(g.dir, filepath.FromSlash(ledger)))
	if err != nil {
		t.Fatal(err)
	}
	if j := g.s.ReadJournal()[ledger]; len(j) == 0 || j[len(j)-1].After != gitrepo.BlobHash(now) {
		t.Errorf("after compaction the ledger's chain is %+v", j)
	}
	// Once committed, a compaction drops the chain; without a repository
	// to ask, it keeps every chain.
	g.commit("comment")
	g.reopen()
	data, _ = os.ReadFile(journal)
	if err := g.s.compactJournal(nil, key, journal, data); err != nil {
		t.Fatal(err)
	}
	// (The ledger and the session file of the agent started above.)
	if j := g.s.ReadJournal(); len(j[ledger]) != 1 || len(j) != 2 {
		t.Errorf("compaction without git: %v", j)
	}
	data, _ = os.ReadFile(journal)
	if err := g.s.compactJournal(mustRepo(t, g.s), key, journal, data); err != nil {
		t.Fatal(err)
	}
	if j := g.s.ReadJournal(); len(j) != 0 {
		t.Errorf("committed writes kept: %v", j)
	}
	if b := journalBase([]byte(journalHeader + "123 bytes\nx")); b != 123 {
		t.Errorf("journalBase = %d", b)
	}
}

func TestJournalIgnoresUnsealedLines(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	const a, b = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	good := journalLine(key, JournalEntry{After: a, Before: b, Size: 10}, ".todos/history/td-x.jsonl")
	for name, c := range map[string]struct {
		data string
		want int
	}{
		"sealed":                  {good, 1},
		"unsealed, as appended":   {a + " " + b + " 10 .todos/history/td-x.jsonl\n", 0},
		"sealed by another key":   {journalLine([]byte("another key, not the journal's!!"), JournalEntry{After: a, Before: b, Size: 10}, ".todos/history/td-x.jsonl"), 0},
		"another size":            {strings.Replace(good, " 10 ", " 11 ", 1), 0},
		"seal of another path":    {strings.Replace(good, "td-x", "td-y", 1), 0},
		"seal of another content": {strings.Replace(good, a, b, 1), 0},
		"header and sealed":       {journalHeader + "10 bytes\n" + good, 1},
	} {
		if got := len(parseJournal(key, []byte(c.data))[".todos/history/td-x.jsonl"]); got != c.want {
			t.Errorf("%s: %d entries, want %d", name, got, c.want)
		}
	}
}

func mustRepo(t *testing.T, s *Store) *gitrepo.Repo {
	t.Helper()
	r, err := s.GitRepo()
	if err != nil || r == nil {
		t.Fatalf("no repository: %v", err)
	}
	return r
}

func TestJournalKeyIsMadeOnceAndWhole(t *testing.T) {
	g := newGitStore(t)
	r := mustRepo(t, g.s)
	keys := make(chan []byte, 4)
	for range 4 {
		go func() {
			k, err := journalKey(r)
			if err != nil {
				t.Error(err)
			}
			keys <- k
		}()
	}
	first := <-keys
	for range 3 {
		if k := <-keys; !bytes.Equal(k, first) || len(k) != 32 {
			t.Errorf("two td processes made different keys: %x and %x", first, k)
		}
	}
	ents, err := os.ReadDir(r.CommonDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), journalKeyName+".tmp-") {
			t.Errorf("temporary key file left: %s", e.Name())
		}
	}
	fi, err := os.Stat(filepath.Join(r.CommonDir(), journalKeyName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
}

// CheckLedgerKept holds td only to its writes pending on top of HEAD: a
// line td appended and a person removed is refused; once committed, or on
// a branch whose ledger never had td's pending write, nothing is.
func TestCheckLedgerKept(t *testing.T) {
	g := newGitStore(t)
	g.commit("init")
	g.reopen()
	se := actor(t, g.s)
	is, err := createIssue(g.s, se, "busy")
	if err != nil {
		t.Fatal(err)
	}
	g.commit("issue")
	g.reopen()
	ledger := filepath.Join(g.dir, ".todos", "history", is.ID+".jsonl")
	committed, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	comment := func(text string) {
		t.Helper()
		if err := g.s.Update(func(tx *Tx) error {
			return g.s.AppendLedger(tx, is.ID, audit.Entry{TS: g.s.Now(), Session: se.ID, Action: audit.ActionCommented, Details: map[string]any{"text": text}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	comment("pending")
	if err := g.s.CheckLedgerKept(is.ID); err != nil {
		t.Fatalf("td's own pending write refused: %v", err)
	}
	comment("appended after it")
	if err := g.s.CheckLedgerKept(is.ID); err != nil {
		t.Fatalf("a later append refused: %v", err)
	}
	// The person puts HEAD's ledger back: td's lines are gone.
	if err := os.WriteFile(ledger, committed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := g.s.CheckLedgerKept(is.ID); CodeOf(err) != CodeRefused {
		t.Fatalf("removed lines not refused: %v", err)
	}
	// Committed as it is (a ledger without td's pending lines, as another
	// branch would have it), HEAD holds it: td's old chain no longer starts
	// from HEAD, so it says nothing.
	g.commit("the ledger as HEAD had it, committed again")
	g.reopen()
	other := append(append([]byte{}, committed...), []byte(`{"ts":"2026-11-21T10:00:00Z","session":"ses_other001","action":"commented","text":"on another branch"}`+"\n")...)
	if err := os.WriteFile(ledger, other, 0o644); err != nil {
		t.Fatal(err)
	}
	g.commit("another branch's ledger")
	g.reopen()
	if err := g.s.CheckLedgerKept(is.ID); err != nil {
		t.Fatalf("a ledger td never wrote pending on is refused: %v", err)
	}
}
