package repo

import (
	"os"
	"slices"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

func TestChildLinksCacheFollowsTheIndex(t *testing.T) {
	s := newTestStore(t)
	child := func(id string, parents ...string) *Issue {
		is := &Issue{Issue: domain.Issue{ID: id, Title: id, Status: "open"}}
		for _, p := range parents {
			is.Links = append(is.Links, domain.Link{Kind: domain.ChildOf, To: p})
		}
		is.Links = append(is.Links, domain.Link{Kind: domain.BlockedBy, To: "td-pppppp"})
		return is
	}
	entries := []indexEntry{
		{name: "td-aaaaaa.md", issue: child("td-aaaaaa", "td-pppppp")},
		{name: "td-bbbbbb.md", issue: child("td-bbbbbb", "td-pppppp", "td-pppppp")},
		{name: "td-cccccc.md", issue: child("td-cccccc", "td-qqqqqq")},
		{name: "td-dddddd.md", issue: child("td-dddddd", "td-pppppp"), err: &ParseError{Msg: "conflict", Conflict: true}},
		{name: "td-eeeeee.md", err: &ParseError{Msg: "bad"}},
	}
	s.writeIndex(entries)
	for _, tt := range []struct {
		parent string
		want   []string
	}{
		{"td-pppppp", []string{"td-aaaaaa", "td-bbbbbb"}},
		{"td-qqqqqq", []string{"td-cccccc"}},
		{"td-zzzzzz", nil},
	} {
		got, ok := s.cachedChildLinks(tt.parent)
		if !ok || !slices.Equal(got, tt.want) {
			t.Errorf("children of %s from children.bin: %v (used: %v), want %v", tt.parent, got, ok, tt.want)
		}
		index, err := os.ReadFile(s.Path(LocalDir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		if fromIndex, err := cachedChildren(index, tt.parent); err != nil || !slices.Equal(fromIndex, got) {
			t.Errorf("children of %s: the index says %v (%v), children.bin %v", tt.parent, fromIndex, err, got)
		}
	}

	// An index written without its links (a crash between the two writes,
	// an older td) is read instead of the links it no longer matches.
	entries[2].issue = child("td-cccccc", "td-pppppp")
	if err := writeCacheFile(s.Path(LocalDir, IndexFile), encodeIndex(entries, 0)); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.cachedChildLinks("td-pppppp"); ok {
		t.Fatalf("links of another index were used: %v", got)
	}
	got, err := s.ChildCandidates("td-pppppp")
	if want := []string{"td-aaaaaa", "td-bbbbbb", "td-cccccc"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ChildCandidates after the index moved on = %v, %v; want %v", got, err, want)
	}

	// Corrupt links are not read.
	s.writeIndex(entries)
	p := s.Path(LocalDir, childrenFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		bad := append([]byte{}, data...)
		bad[i] ^= 0x20
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.cachedChildLinks("td-pppppp"); ok {
			t.Fatalf("flipping byte %d of children.bin went unnoticed: %v", i, got)
		}
	}
}
