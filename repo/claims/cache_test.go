package claims

import (
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/repotest"
)

// claimedStore is a git store where session "a" holds the claims of the
// issues given.
func claimedStore(t *testing.T, issues ...string) (*repo.Store, *repo.Session) {
	t.Helper()
	g := repotest.NewGitStore(t)
	now := repotest.Clock
	s := clockStore(t, g, &now)
	a, err := s.StartSession(repo.StartOptions{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, issue := range issues {
		if _, err := Take(s, a, issue, "start", HandOver{}); err != nil {
			t.Fatal(err)
		}
	}
	return s, a
}

// cacheEveryRead makes read use the record cache for any number of
// records, as it does for many.
func cacheEveryRead(t *testing.T) {
	old := fewRecords
	fewRecords = 0
	t.Cleanup(func() { fewRecords = old })
}

func TestRecordCache(t *testing.T) {
	cacheEveryRead(t)
	issues := []string{"td-aaaaaa", "td-bbbbbb", "td-cccccc"}
	s, a := claimedStore(t, issues...)
	all := func() []string {
		t.Helper()
		cs, err := Load(s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs.All() {
			out = append(out, c.Issue+" "+c.Session)
		}
		return out
	}
	want := strings.Join([]string{"td-aaaaaa " + a.ID, "td-bbbbbb " + a.ID, "td-cccccc " + a.ID}, "\n")
	if got := strings.Join(all(), "\n"); got != want {
		t.Fatalf("claims read from their commits:\n%s\nwant\n%s", got, want)
	}
	gr, err := s.GitRepo()
	if err != nil {
		t.Fatal(err)
	}
	cache := s.Path(repo.LocalDir, cacheName)
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("the first full read wrote no cache: %v", err)
	}
	if n := bytes.Count(data, []byte("td claim ")); n != 3 {
		t.Fatalf("the cache holds %d records, want 3:\n%s", n, data)
	}

	// A cache cut short, zeroed or changed by hand is read from the commits.
	for name, bad := range map[string][]byte{
		"cut short": data[:len(data)-20],
		"zeroed":    make([]byte, len(data)),
		"changed":   bytes.Replace(data, []byte(a.ID), []byte("ses_zzzzzzzz"), 1),
		"empty":     nil,
	} {
		if err := os.WriteFile(cache, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(all(), "\n"); got != want {
			t.Errorf("with the cache %s the claims are\n%s\nwant\n%s", name, got, want)
		}
	}

	// A released claim's record leaves the cache at the next full read.
	if c, err := Release(s, "td-cccccc", a.ID, a.ID); c == nil || err != nil {
		t.Fatalf("Release = %v, %v", c, err)
	}
	want = strings.Join([]string{"td-aaaaaa " + a.ID, "td-bbbbbb " + a.ID}, "\n")
	if got := strings.Join(all(), "\n"); got != want {
		t.Fatalf("claims after a release:\n%s\nwant\n%s", got, want)
	}
	if data, err = os.ReadFile(cache); err != nil || bytes.Count(data, []byte("td claim ")) != 2 {
		t.Fatalf("the cache after a release (%v):\n%s", err, data)
	}

	// With the commits' loose objects gone, the records come from the cache.
	cs, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, issue := range issues[:2] {
		h := cs.refs[issue]
		if err := os.Remove(filepath.Join(gr.CommonDir(), "objects", h[:2], h[2:])); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(all(), "\n"); got != want {
		t.Fatalf("claims read from the cache:\n%s\nwant\n%s", got, want)
	}
}

// TestCommittedClaimsIgnoreTheCache: a rule reads the commits, so a cache
// written by anything else cannot change what td check decides.
func TestCommittedClaimsIgnoreTheCache(t *testing.T) {
	cacheEveryRead(t)
	s, a := claimedStore(t, "td-aaaaaa")
	cs, err := Load(s)
	if err != nil || cs.Get("td-aaaaaa") == nil {
		t.Fatalf("Load = %v, %v", cs, err)
	}
	cache := s.Path(repo.LocalDir, cacheName)
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	// A forged cache, checksum and all, naming another session.
	_, body, _ := bytes.Cut(data, []byte("\n"))
	body = bytes.ReplaceAll(body, []byte(a.ID), []byte("ses_zzzzzzzz"))
	forged := append([]byte(cacheHeader+strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 16)+"\n"), body...)
	if err := os.WriteFile(cache, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if cs, _ := Load(s); cs.Get("td-aaaaaa").Session != "ses_zzzzzzzz" {
		t.Fatal("the forged cache was not read: this test proves nothing")
	}
	cs, err = LoadCommitted(s)
	if err != nil {
		t.Fatal(err)
	}
	if c := cs.Get("td-aaaaaa"); c == nil || c.Session != a.ID {
		t.Fatalf("LoadCommitted read %+v, want the commit's session %s", c, a.ID)
	}
	if after, _ := os.ReadFile(cache); !bytes.Equal(after, forged) {
		t.Error("LoadCommitted rewrote the cache")
	}
}

// TestFewRecordsSkipTheCache: a command about one claim reads its commit,
// not the file of every record.
func TestFewRecordsSkipTheCache(t *testing.T) {
	s, _ := claimedStore(t, "td-aaaaaa")
	cs, err := LoadIssues(s, "td-aaaaaa")
	if err != nil || cs.Get("td-aaaaaa") == nil {
		t.Fatalf("LoadIssues = %v, %v", cs, err)
	}
	if _, err := os.Stat(s.Path(repo.LocalDir, cacheName)); err == nil {
		t.Error("reading one claim wrote the record cache")
	}
}

// TestUnwritableCache: when the cache cannot be written (a full disk; here
// a directory in its place), every read takes the records from their
// commits and the claims read are the same.
func TestUnwritableCache(t *testing.T) {
	cacheEveryRead(t)
	s, a := claimedStore(t, "td-aaaaaa", "td-bbbbbb")
	if err := os.MkdirAll(filepath.Join(s.Path(repo.LocalDir, cacheName), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cs, err := Load(s)
		if err != nil {
			t.Fatal(err)
		}
		if c := cs.Get("td-bbbbbb"); c == nil || c.Session != a.ID || cs.Get("td-aaaaaa") == nil {
			t.Fatalf("claims with an unwritable cache: %+v", cs.All())
		}
	}
}
