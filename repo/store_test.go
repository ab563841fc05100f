package repo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
)

// newTestStore initialises a store without git in a temp directory.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"GIT_AUTHOR_NAME": "Op", "GIT_AUTHOR_EMAIL": "op@example.com"}
	opts := Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		Env: func(k string) string { return env[k] },
	}
	if _, err := Init(dir, InitOptions{NoGit: true, Options: opts}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func actor(t testing.TB, s *Store) *Session {
	t.Helper()
	se, _, err := s.CurrentSession("", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveSession(); err != nil {
		t.Fatal(err)
	}
	return se
}

// createIssue files an issue the way td create does, through the
// persistence layer alone: the issue file and its "created" ledger entry,
// in one transaction.
func createIssue(s *Store, se *Session, title string) (*Issue, error) {
	now := s.Now()
	is := &Issue{Issue: domain.Issue{Title: title, Status: domain.StatusOpen, Type: domain.DefaultType,
		Priority: domain.DefaultPriority, CreatedBy: se.ID, Links: []domain.Link{}, CreatedAt: now, UpdatedAt: now}}
	err := s.Update(func(tx *Tx) error {
		id, err := s.NewIssueID()
		if err != nil {
			return err
		}
		is.ID, is.Path = id, s.RelIssue(id)
		doc, err := NewIssueDoc(is, "")
		if err != nil {
			return err
		}
		if err := tx.WriteFile(doc.Bytes(), IssuesDir, id+".md"); err != nil {
			return err
		}
		return s.AppendLedger(tx, id, audit.Entry{TS: now, Session: se.ID, Action: audit.ActionCreated, Details: map[string]any{"title": title}})
	})
	return is, err
}

func writeIssueFile(t testing.TB, s *Store, id, content string) {
	t.Helper()
	if err := os.WriteFile(s.IssuePath(id), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveID(t *testing.T) {
	s := newTestStore(t)
	for _, id := range []string{"td-abc123", "td-abd456", "td-x00000"} {
		writeIssueFile(t, s, id, "---\nid: "+id+"\ntitle: t\n---\n")
	}
	tests := []struct {
		ref  string
		want string
		code Code
	}{
		{"td-abc123", "td-abc123", ""},
		{"TD-ABC123", "td-abc123", ""},
		{"td-abc", "td-abc123", ""},
		{"abc", "td-abc123", ""},
		{"x", "td-x00000", ""},
		{"td-ab", "", CodeAmbiguous},
		{"ab", "", CodeAmbiguous},
		{"td-zzz", "", CodeNotFound},
		{"../td-abc123", "", CodeInvalid},
	}
	for _, tt := range tests {
		got, err := s.ResolveID(tt.ref)
		if tt.code != "" {
			if CodeOf(err) != tt.code {
				t.Errorf("ResolveID(%q) = %q, %v; want code %s", tt.ref, got, err, tt.code)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveID(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
}

func TestParseIssueRefusals(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
		msg           string
	}{
		{"no frontmatter", "# just markdown\n", 1, ""},
		{"wrong id", "---\nid: td-other1\ntitle: x\n---\n", 2, "does not match the file name"},
		{"no id", "---\ntitle: x\n---\n", 1, "has no id"},
		{"empty title", "---\nid: td-abc123\ntitle: \"\"\n---\n", 3, "title is empty"},
		{"bad status", "---\nid: td-abc123\ntitle: x\nstatus: done\n---\n", 4, `status "done"`},
		{"bad type", "---\nid: td-abc123\ntitle: x\ntype: story\n---\n", 4, `type "story"`},
		{"bad priority", "---\nid: td-abc123\ntitle: x\npriority: high\n---\n", 4, `priority "high"`},
		{"bad time", "---\nid: td-abc123\ntitle: x\ncreated_at: yesterday\n---\n", 4, "RFC 3339"},
		{"bad link kind", "---\nid: td-abc123\ntitle: x\nlinks:\n  - {kind: parent, to: td-abc124}\n---\n", 4, "link kind"},
		{"bad link target", "---\nid: td-abc123\ntitle: x\nlinks: [{kind: child_of, to: ../x}]\n---\n", 4, "link target"},
		{"alias", "---\nid: td-abc123\ntitle: &a x\nlabels: [*a]\n---\n", 3, "anchors and aliases"},
		{"invalid utf-8", "---\nid: td-abc123\ntitle: x\n---\nok\n\xff\xfe\n", 6, ""},
		{"wrong type of value", "---\nid: td-abc123\ntitle: x\nlabels: {a: b}\n---\n", 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseIssue("p.md", "td-abc123", []byte(tt.content))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a ParseError", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) || pe.Path != "p.md" {
				t.Fatalf("got %q (line %d), want line %d containing %q", pe.Error(), pe.Line, tt.line, tt.msg)
			}
		})
	}
}

func TestParseIssueLenientDefaults(t *testing.T) {
	is, err := ParseIssue("p.md", "td-abc123", []byte("---\nid: td-abc123\ntitle: Hand written\npriority: p1\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if is.Status != domain.StatusOpen || is.Type != "task" || is.Priority != "P1" {
		t.Fatalf("defaults: status %q type %q priority %q", is.Status, is.Type, is.Priority)
	}
}

func TestFilterMatch(t *testing.T) {
	open := &Issue{Issue: domain.Issue{Status: "open", Type: "bug", Priority: "P1", Labels: []string{"a", "b"}, Assignee: "session:ses_12345678"}}
	closed := &Issue{Issue: domain.Issue{Status: "closed", Type: "task", Priority: "P2"}}
	tests := []struct {
		name string
		f    Filter
		is   *Issue
		want bool
	}{
		{"default hides closed", Filter{}, closed, false},
		{"all shows closed", Filter{All: true}, closed, true},
		{"status closed shows closed", Filter{Statuses: []string{"closed"}}, closed, true},
		{"default shows open", Filter{}, open, true},
		{"type alternatives", Filter{Types: []string{"feature", "bug"}}, open, true},
		{"type mismatch", Filter{Types: []string{"feature"}}, open, false},
		{"priority case-insensitive", Filter{Priorities: []string{"p1"}}, open, true},
		{"every label needed", Filter{Labels: []string{"a", "c"}}, open, false},
		{"labels present", Filter{Labels: []string{"b", "a"}}, open, true},
		{"assignee by session id", Filter{Assignee: "ses_12345678"}, open, true},
		{"assignee full", Filter{Assignee: "session:ses_12345678"}, open, true},
		{"assignee mismatch", Filter{Assignee: "ses_x"}, open, false},
		{"assignee session by name", Filter{Assignee: "bob", assigneeSessions: map[string]bool{"ses_12345678": true}}, open, true},
		{"assignee other session by name", Filter{Assignee: "bob", assigneeSessions: map[string]bool{"ses_87654321": true}}, open, false},
		{"assignee text case-insensitive", Filter{Assignee: "BOB"}, &Issue{Issue: domain.Issue{Status: "open", Assignee: "Bob"}}, true},
	}
	for _, tt := range tests {
		if got := tt.f.Match(tt.is); got != tt.want {
			t.Errorf("%s: match = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIndexCacheRoundTripAndCorruption(t *testing.T) {
	entries := []indexEntry{
		{name: "td-abc123.md", size: 10, mtime: 5, issue: &Issue{Issue: domain.Issue{ID: "td-abc123", Title: "T", Status: "open", Type: "bug", Priority: "P1", Minor: true, Labels: []string{"x", "y"}, Links: []domain.Link{{Kind: "child_of", To: "td-abc124"}}, CreatedAt: time.Unix(100, 0).UTC()}, Path: "p",
			tally: domain.Summary{Done: 3, Open: 2, Dropped: 1, Blocked: 4, CriteriaTotal: 5, CriteriaDone: 2}}},
		{name: "td-bad000.md", size: 3, mtime: 7, err: &ParseError{Path: "q", Line: 2, Msg: "bad"}},
		{name: "td-con000.md", size: 4, mtime: 8, err: &ParseError{Path: "r", Line: 3, Msg: "conflict", Conflict: true},
			issue: &Issue{Issue: domain.Issue{ID: "td-con000", Title: "Ours"}, Conflicted: true}},
		{name: "td-new000.md", size: 3, mtime: 1000, issue: &Issue{Issue: domain.Issue{ID: "td-new000"}}},
	}
	data := encodeIndex(entries, 999)
	m, err := decodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	got := m["td-abc123.md"]
	if got.issue.Title != "T" || !got.issue.Minor || got.issue.Labels[1] != "y" || got.issue.Links[0].To != "td-abc124" || got.issue.CreatedAt.Unix() != 100 || got.mtime != 5 {
		t.Fatalf("round trip lost data: %+v %+v", got, got.issue)
	}
	if tl := got.issue.Tally(); tl != (domain.Summary{Done: 3, Open: 2, Dropped: 1, Blocked: 4, CriteriaTotal: 5, CriteriaDone: 2}) {
		t.Fatalf("round trip lost the checklist's counts: %+v", tl)
	}
	if m["td-bad000.md"].err.Msg != "bad" || m["td-bad000.md"].err.Line != 2 {
		t.Fatalf("parse error lost: %+v", m["td-bad000.md"])
	}
	if c := m["td-con000.md"]; c.err == nil || !c.err.Conflict || c.err.Line != 3 || c.issue == nil || !c.issue.Conflicted || c.issue.Title != "Ours" {
		t.Fatalf("conflicted entry lost: %+v", c)
	}
	if m["td-abc123.md"].issue.Conflicted || m["td-abc123.md"].err != nil {
		t.Fatal("a readable entry came back conflicted")
	}
	if m["td-new000.md"].mtime != -1 {
		t.Fatalf("a racily new entry must not be trusted, mtime = %d", m["td-new000.md"].mtime)
	}
	for i := 0; i < len(data); i += 7 {
		bad := append([]byte{}, data...)
		bad[i] ^= 0x40
		if _, err := decodeIndex(bad); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	if _, err := decodeIndex(data[:len(data)/2]); err == nil {
		t.Fatal("a truncated cache went unnoticed")
	}
	// A cache of the version before, without the counts, is rebuilt.
	old := append([]byte{}, data...)
	old[len(indexMagic)] = indexVersion - 1
	old = binary.BigEndian.AppendUint32(old[:len(old)-4], crc32.ChecksumIEEE(old[:len(old)-4]))
	if _, err := decodeIndex(old); err == nil {
		t.Fatal("a cache of the previous version was read")
	}
}

func TestListSeesHandEditsAndSurvivesACorruptCache(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	is, err := createIssue(s, se, "First")
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(Filter{})
	if err != nil || len(list) != 1 || list[0].Title != "First" {
		t.Fatalf("list = %v, %v", list, err)
	}
	// A hand edit of the same size right after the cache was written.
	p := s.IssuePath(is.ID)
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "title: First", "title: Fir5t", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	list, _, _ = s.List(Filter{})
	if list[0].Title != "Fir5t" {
		t.Fatalf("a same-size hand edit was missed: %q", list[0].Title)
	}
	// Garbage in the cache is rebuilt silently.
	if err := os.WriteFile(s.Path(LocalDir, IndexFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, perrs, err := s.List(Filter{})
	if err != nil || len(perrs) != 0 || len(list) != 1 {
		t.Fatalf("after corruption: %v %v %v", list, perrs, err)
	}
	// A deleted file disappears from the list.
	os.Remove(p)
	list, _, _ = s.List(Filter{})
	if len(list) != 0 {
		t.Fatalf("a deleted issue is still listed: %v", list)
	}
}

func TestReadRefusesOversizedFiles(t *testing.T) {
	s := newTestStore(t)
	big := "---\nid: td-big000\ntitle: big\n---\n" + strings.Repeat("x", MaxIssueFileSize)
	writeIssueFile(t, s, "td-big000", big)
	_, err := s.Issue("td-big000")
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "over the") {
		t.Fatalf("got %v, want a size refusal", err)
	}
}

func TestEffectiveRole(t *testing.T) {
	s := newTestStore(t)
	s.Config.Operators = []string{"Op <OP@example.com>", "Named Only"}
	tests := []struct {
		se   Session
		want domain.Role
	}{
		{Session{Role: domain.RoleOperator, Author: "Op <op@example.com>"}, domain.RoleOperator},
		{Session{Role: domain.RoleOperator, Author: "Named Only <x@y>"}, domain.RoleOperator},
		{Session{Role: domain.RoleOperator, Author: "Other <other@example.com>"}, domain.RoleMember},
		{Session{Role: domain.RoleAgent, Agent: "primary", Author: "Op <op@example.com>"}, domain.RoleAgent},
		{Session{Role: domain.RoleAgent, Agent: "primary", Author: "Other <other@example.com>"}, domain.RoleAgent},
		{Session{Role: domain.RoleAgent, Author: "Op <op@example.com>"}, domain.RoleAgent},
	}
	for _, tt := range tests {
		if got := s.EffectiveRole(&tt.se); got != tt.want {
			t.Errorf("EffectiveRole(%+v) = %s, want %s", tt.se, got, tt.want)
		}
	}
}

func TestAtomicWriteLeavesNothingBehindOnFailure(t *testing.T) {
	dir := t.TempDir()
	// The rename fails when the target is a non-empty directory: the write
	// must fail cleanly, leaving the target as it was and no temporary file.
	target := filepath.Join(dir, "f.md")
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(target, []byte("new")); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "f.md" || !ents[0].IsDir() {
		t.Fatalf("directory now holds %v, want only the untouched target", ents)
	}
	// And a successful write replaces the content whole.
	p := filepath.Join(dir, "g.md")
	for _, content := range []string{"old", "new content"} {
		if err := writeFileAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Fatalf("read %q, want %q", b, content)
		}
	}
}

func TestAtomicWriteRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here")
	}
	if err := writeFileAtomic(link, []byte("x")); err == nil {
		t.Fatal("wrote through a symlink")
	}
	if _, err := appendLine(link, []byte("x"), nil); err == nil {
		t.Fatal("appended through a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("symlink target changed: %q", b)
	}
}

// FuzzDecodeIndex: a corrupt cache never panics; it is rejected or read.
func FuzzDecodeIndex(f *testing.F) {
	entries := []indexEntry{
		{name: "td-abc123.md", size: 10, mtime: 5, issue: &Issue{Issue: domain.Issue{ID: "td-abc123", Title: "T", Labels: []string{"x"}, Links: []domain.Link{{Kind: "child_of", To: "td-abc124"}}}}},
		{name: "td-bad000.md", size: 3, mtime: 7, err: &ParseError{Path: "q", Line: 2, Msg: "bad"}},
	}
	f.Add(encodeIndex(entries, 1<<62))
	f.Add(encodeIndex(nil, 0))
	f.Add([]byte("TDIX\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeIndex(data)
		// Re-checksummed, so the decoder's own bounds are what is tested.
		if len(data) >= 9 {
			body := data[:len(data)-4]
			sum := crc32.ChecksumIEEE(body)
			fixed := binary.BigEndian.AppendUint32(append([]byte{}, body...), sum)
			if got, err := decodeIndexEntries(fixed); err == nil {
				// What decodes encodes back to what decodes the same.
				again, err := decodeIndexEntries(encodeIndex(got, 1<<62))
				if err != nil || len(again) != len(got) {
					t.Fatalf("re-encoded index: %d entries, %v; want %d", len(again), err, len(got))
				}
			}
		}
	})
}

// TestIndexChunks: an index of several chunks decodes to what was encoded,
// and a chunk table that does not match the entries is refused even
// under a good checksum.
func TestIndexChunks(t *testing.T) {
	var entries []indexEntry
	for i := range 2*indexChunk + 3 {
		name := fmt.Sprintf("td-%06d.md", i)
		e := indexEntry{name: name, size: int64(i), mtime: int64(i + 1)}
		if i%7 == 3 {
			e.err = &ParseError{Path: name, Line: i, Msg: "bad"}
		} else {
			e.issue = &Issue{Issue: domain.Issue{ID: strings.TrimSuffix(name, ".md"), Title: fmt.Sprint("T", i), Labels: []string{"a"}}}
		}
		entries = append(entries, e)
	}
	data := encodeIndex(entries, 1<<62)
	got, err := decodeIndexEntries(data)
	if err != nil || len(got) != len(entries) {
		t.Fatalf("decoded %d entries, %v; want %d", len(got), err, len(entries))
	}
	for i, e := range entries {
		g := got[i]
		if g.name != e.name || g.size != e.size || g.mtime != e.mtime || (g.err == nil) != (e.err == nil) || (e.issue != nil && (g.issue == nil || g.issue.Title != e.issue.Title)) {
			t.Fatalf("entry %d: %+v, want %+v", i, g, e)
		}
	}
	reseal := func(body []byte) []byte {
		return binary.BigEndian.AppendUint32(body, crc32.ChecksumIEEE(body))
	}
	body := bytes.Clone(data[:len(data)-4])
	at := binary.BigEndian.Uint32(body[len(body)-4:])
	for _, delta := range []int{-1, 1, 5} {
		bad := bytes.Clone(body)
		binary.BigEndian.PutUint32(bad[len(bad)-4:], uint32(int(at)+delta))
		if _, err := decodeIndexEntries(reseal(bad)); err == nil {
			t.Errorf("a table offset moved by %d decoded", delta)
		}
	}
	// The second chunk's start moved by one byte.
	tab := len(indexMagic) + 1 + int(at)
	bad := bytes.Clone(body)
	bad[tab+2]++
	if _, err := decodeIndexEntries(reseal(bad)); err == nil {
		t.Error("a chunk start moved by one decoded")
	}
}

func TestAtomicWriteKeepsPermissions(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode after write = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

// WriteIssueFile refuses a body td would refuse to read back, whatever
// built it, and writes nothing.
func TestWriteIssueFileRefusesABodyPastTheLimits(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	is, err := createIssue(s, se, "Deep")
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.IssuePath(is.ID))
	if err != nil {
		t.Fatal(err)
	}
	is, err = s.ReadIssueFile(is.ID)
	if err != nil {
		t.Fatal(err)
	}
	is.Doc.Body = []byte(strings.Repeat("> ", markdown.MaxNesting+1) + "x\n")
	err = s.Update(func(tx *Tx) error { return s.WriteIssueFile(tx, is) })
	if CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "would be refused when read back: lists and quotes nest more than 32 levels deep") {
		t.Fatalf("WriteIssueFile = %v, want a refusal", err)
	}
	if after, _ := os.ReadFile(s.IssuePath(is.ID)); string(after) != string(before) {
		t.Error("the issue file changed")
	}
}
