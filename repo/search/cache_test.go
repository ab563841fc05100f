package search

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/issues"
	"github.com/tdproject/td/repo/repotest"
)

func TestFilterHoldsEveryWordOfItsTexts(t *testing.T) {
	for _, tc := range []struct {
		texts []string
		word  string
		want  bool
	}{
		{[]string{"the webhook retries"}, "webhook", true},
		{[]string{"the webhook retries"}, "hook ret", true},
		{[]string{"title", "body with oauth"}, "oauth", true},
		{[]string{"wörds ünïcode"}, "ünï", true},
		{[]string{""}, "ab", true},       // too short to filter
		{[]string{"abc"}, "abcd", false}, // a trigram the text lacks
		{[]string{"sign in", "dark"}, "kubernetes", false},
	} {
		if got := newFilter(tc.texts...).mayHold(tc.word); got != tc.want {
			t.Errorf("newFilter(%q).mayHold(%q) = %v, want %v", tc.texts, tc.word, got, tc.want)
		}
	}
}

func TestFilterSize(t *testing.T) {
	for _, tc := range []struct {
		text string
		want byte
	}{
		{"", minFilterLog},
		{"abcd", minFilterLog},
		{strings.Repeat("x", 10_000), minFilterLog}, // one trigram, repeated
		{longText(1000), 11},                        // ~1,000 trigrams: 2,048 bits
		{longText(200_000), maxFilterLog},
	} {
		f := newFilter(tc.text)
		if f[0] != tc.want || !f.valid() {
			t.Errorf("filter of %d bytes: log2 size %d (valid %v), want %d", len(tc.text), f[0], f.valid(), tc.want)
		}
	}
}

// longText is n letters and digits, nearly all of whose trigrams differ
// while n is well below 36³.
func longText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = alphabet[x%36]
	}
	return string(b)
}

// FuzzFilter holds the filter to what a search finds: a word the
// case-folded text holds, the filter of that text may hold.
func FuzzFilter(f *testing.F) {
	f.Add("The webhook retries", "webhook")
	f.Add("Ünïcode WÖRDS", "wör")
	f.Add("a\xffb invalid", "\xffb")
	f.Fuzz(func(t *testing.T, text, word string) {
		text, word = strings.ToLower(text), strings.ToLower(word)
		if !strings.Contains(text, word) {
			return
		}
		// Split the text as a search's texts are: at line ends.
		if !newFilter(strings.Split(text, "\n")...).mayHold(word) && !strings.Contains(word, "\n") {
			t.Fatalf("the filter of %q says it cannot hold %q", text, word)
		}
	})
}

func TestCacheRoundTrip(t *testing.T) {
	c := cache{
		{id: "td-aaaaaa", issue: repo.Stamp{Size: 120, Mtime: 1}, ledger: repo.Stamp{Size: repo.StampAbsent}, filter: newFilter("one")},
		{id: "td-bbbbbb", issue: repo.Stamp{Size: 5, Mtime: 1 << 60}, ledger: repo.Stamp{Size: 9, Mtime: -5}, filter: newFilter(longText(900))},
	}
	data := encodeCache(c)
	got, err := decodeCache(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(c) {
		t.Fatalf("decoded %d entries, want %d", len(got), len(c))
	}
	for i := range c {
		if got[i].id != c[i].id || got[i].issue != c[i].issue || got[i].ledger != c[i].ledger || !bytes.Equal(got[i].filter, c[i].filter) {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], c[i])
		}
	}
	// Every cut, and every flipped byte, is refused (the checksum).
	for n := range data {
		if _, err := decodeCache(data[:n]); err == nil {
			t.Fatalf("a cache cut at %d bytes decoded", n)
		}
		bad := bytes.Clone(data)
		bad[n] ^= 0x40
		if _, err := decodeCache(bad); err == nil {
			t.Fatalf("a cache with byte %d flipped decoded", n)
		}
	}
	// Entries out of order are refused even under a good checksum.
	if _, err := decodeCache(encodeCache(cache{c[1], c[0]})); err == nil {
		t.Error("entries out of ID order decoded")
	}
}

// FuzzDecodeCache: a cache td cannot read is refused, never a panic, and
// one it reads is written back byte for byte.
func FuzzDecodeCache(f *testing.F) {
	f.Add(encodeCache(cache{{id: "td-aaaaaa", issue: repo.Stamp{Size: 1, Mtime: 2}, ledger: repo.Stamp{Size: -1}, filter: newFilter("abc")}}))
	f.Add(encodeCache(nil))
	f.Add([]byte("TDSF\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeCache(data)
		if err != nil {
			return
		}
		for _, e := range c {
			if !utf8.ValidString(e.id) && len(e.id) == 0 {
				t.Fatal("an empty ID decoded")
			}
			e.filter.mayHold("abcdef")
		}
		if out := encodeCache(c); !bytes.Equal(out, data) {
			t.Fatalf("re-encoded cache differs:\n%x\n%x", out, data)
		}
	})
}

// TestSearchTrustsFilterWhileStampsHold shows the cache at work: a filter
// forged to hold nothing hides an issue while its files keep their
// stamps, and stops counting the moment either changes.
func TestSearchTrustsFilterWhileStampsHold(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	is, err := issues.Create(s, se, issues.CreateOptions{Title: "Webhook retries"})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	issueFile, ledgerFile := s.Path(repo.IssuesDir, is.ID+".md"), s.Path(repo.HistoryDir, is.ID+".jsonl")
	backdate := func() {
		t.Helper()
		for _, p := range []string{issueFile, ledgerFile} {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	found := func() int {
		t.Helper()
		res, errs, err := Run(s, "webhook", Options{})
		if err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		return res.Total
	}
	backdate()
	if n := found(); n != 1 {
		t.Fatalf("found %d issues, want 1", n)
	}
	// The search wrote the issue's filter; forge it to hold nothing.
	data, err := s.ReadCache(cacheFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeCache(data)
	if err != nil || len(c) != 1 {
		t.Fatalf("cache: %v, %d entries", err, len(c))
	}
	clear(c[0].filter[1:])
	if err := s.WriteCache(cacheFile, encodeCache(c)); err != nil {
		t.Fatal(err)
	}
	if n := found(); n != 0 {
		t.Fatalf("with a filter that holds nothing and unchanged files, found %d issues: the cache was not used", n)
	}
	// A comment changes the ledger's stamp: the issue is read again.
	if _, _, err := issues.Comment(s, se, is.ID, "noted"); err != nil {
		t.Fatal(err)
	}
	if n := found(); n != 1 {
		t.Fatalf("after a comment, found %d issues, want 1", n)
	}
	// And an edit in place of the issue file, the same way.
	backdate()
	found()
	if err := s.WriteCache(cacheFile, encodeCache(c)); err != nil { // stale stamps: ignored
		t.Fatal(err)
	}
	if n := found(); n != 1 {
		t.Fatalf("with a filter of other stamps, found %d issues, want 1", n)
	}
	data, err = os.ReadFile(issueFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(issueFile, append(data, "\nMore text.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := found(); n != 1 {
		t.Fatalf("after an edit in place, found %d issues, want 1", n)
	}
}

// TestSearchWithoutAWritableCache: a cache that cannot be written (a full
// disk, a directory in its place) costs the next search its speed, never
// its answer, and leaves no temporary file behind.
func TestSearchWithoutAWritableCache(t *testing.T) {
	s := repotest.NewStore(t)
	se := repotest.Actor(t, s)
	if _, err := issues.Create(s, se, issues.CreateOptions{Title: "Webhook retries"}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.Path(repo.LocalDir, cacheFile), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, errs, err := Run(s, "webhook", Options{})
		if err != nil || len(errs) > 0 || res.Total != 1 {
			t.Fatalf("Run = %+v, %v, %v; want the one issue", res, errs, err)
		}
	}
	left, err := os.ReadDir(s.Path(repo.LocalDir, "tmp"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if fi, err := os.Stat(s.Path(repo.LocalDir, cacheFile)); err != nil || !fi.IsDir() {
		t.Errorf("the directory in the cache's place was replaced: %v, %v", fi, err)
	}
}
