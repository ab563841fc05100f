package markdown

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
	"unicode"
	"unicode/utf8"
)

func TestParseAnchors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string // priority:text
	}{
		{"none", "Just a description.\n", nil},
		{"issue section", "Desc.\n\n## Anchors\n\n- critical: never push to main\n- high: staging is shared\n- plain note\n\n## Todos\n\n- [ ] x\n",
			[]string{"critical:never push to main", "high:staging is shared", "normal:plain note"}},
		{"stops at next heading", "# Anchors\n\n- high: a\n\n# Other\n\n- high: b\n", []string{"high:a"}},
		{"subheading stays inside", "## Anchors\n\n- high: a\n\n### More\n\n- normal: b\n", []string{"high:a", "normal:b"}},
		{"code block is not an anchor", "## Anchors\n\n```\n- critical: no\n```\n- critical: yes\n", []string{"critical:yes"}},
		{"unknown prefix kept in text", "## Anchors\n\n- Note: the API is frozen\n", []string{"normal:Note: the API is frozen"}},
		{"case of priority", "## anchors\n\n* CRITICAL: loud\n", []string{"critical:loud"}},
		{"wrapped item", "## Anchors\n\n- high: one\n  two\n", []string{"high:one two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, a := range ParseAnchors([]byte(tt.body)) {
				got = append(got, string(a.Priority)+":"+a.Text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAddAnchor(t *testing.T) {
	tests := []struct {
		name, body, prio, text, want string
	}{
		{"empty body", "", "high", "a", "## Anchors\n\n- high: a\n"},
		{"before the criteria", "Desc.\n\n## Acceptance criteria\n\n- [ ] c\n", "critical", "a",
			"Desc.\n\n## Anchors\n\n- critical: a\n\n## Acceptance criteria\n\n- [ ] c\n"},
		{"after the last anchor", "Desc.\n\n## Anchors\n\n- high: a\n\n## Todos\n", "normal", "b",
			"Desc.\n\n## Anchors\n\n- high: a\n- normal: b\n\n## Todos\n"},
		{"at the end", "Desc.\n", "high", "a", "Desc.\n\n## Anchors\n\n- high: a\n"},
		{"no final newline", "Desc.", "high", "a", "Desc.\n\n## Anchors\n\n- high: a\n"},
		{"empty section", "# Anchors\n", "high", "a", "# Anchors\n\n- high: a\n"},
		{"section with prose only", "# Anchors\n\nSome words.\n", "high", "a", "# Anchors\n\nSome words.\n\n- high: a\n"},
		{"prose then another section", "## Anchors\n\nWords.\n\n## Todos\n", "high", "a", "## Anchors\n\nWords.\n\n- high: a\n\n## Todos\n"},
		{"crlf", "Desc.\r\n\r\n## Anchors\r\n\r\n- high: a\r\n", "high", "b", "Desc.\r\n\r\n## Anchors\r\n\r\n- high: a\r\n- high: b\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AddAnchor([]byte(tt.body), domain.AnchorPriority(tt.prio), tt.text, "Acceptance criteria", "Todos")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if n := len(ParseAnchors(got)); n != len(ParseAnchors([]byte(tt.body)))+1 {
				t.Errorf("%d anchors after adding one", n)
			}
		})
	}
	for _, bad := range [][2]string{{"urgent", "x"}, {"high", " "}, {"high", "a\nb"}} {
		if _, err := AddAnchor(nil, domain.AnchorPriority(bad[0]), bad[1]); err == nil {
			t.Errorf("AddAnchor(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestRemoveAnchor(t *testing.T) {
	body := []byte("## Anchors\n\n- high: a\n- critical: b\n- normal: c\n")
	list := ParseAnchors(body)
	got := RemoveAnchor(body, list[1])
	if want := "## Anchors\n\n- high: a\n- normal: c\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDescriptionEndsAtAnchors(t *testing.T) {
	body := []byte("Desc.\n\n## Anchors\n\n- high: a\n")
	if got := DescriptionEnd(body); got != len("Desc.\n\n") {
		t.Errorf("DescriptionEnd = %d", got)
	}
}

// FuzzAnchors checks, on any body, that adding an anchor adds exactly that
// anchor at the end of the list, that removing it gives the body back, and
// that nothing panics.
func FuzzAnchors(f *testing.F) {
	f.Add("Desc.\n\n## Anchors\n\n- high: a\n\n## Todos\n\n- [ ] x\n", "keep the API")
	f.Add("", "x")
	f.Add("# Anchors\n\nProse.\n", "y")
	f.Add("## Anchors\r\n\r\n- critical: a\r\n", "b")
	f.Fuzz(func(t *testing.T, body, txt string) {
		before := ParseAnchors([]byte(body))
		out, err := AddAnchor([]byte(body), domain.AnchorHigh, txt, "Acceptance criteria", "Todos")
		if err != nil {
			return
		}
		after := ParseAnchors(out)
		if len(after) != len(before)+1 {
			t.Fatalf("%d anchors before, %d after adding one", len(before), len(after))
		}
		for i, a := range after {
			if a.Priority == domain.AnchorHigh && a.Text == strings.TrimSpace(txt) {
				back := ParseAnchors(RemoveAnchor(out, a))
				if len(back) != len(before) {
					t.Fatalf("removing anchor %d left %d anchors, want %d", i, len(back), len(before))
				}
				return
			}
		}
		t.Fatalf("the added anchor %q is not in %+v", txt, after)
	})
}

// TestAnchorLettersFoldOnlyInASCII checks mayHoldAnchors' premise: no
// letter outside ASCII folds to one of "anchors", so a heading EqualFold
// to the anchors heading holds "anchor" in ASCII, in some case. ('s' has
// one, the long s, which is why the check stops at "anchor".)
func TestAnchorLettersFoldOnlyInASCII(t *testing.T) {
	for _, c := range "anchor" {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				t.Errorf("%q folds to %U: mayHoldAnchors would miss a heading spelled with it", c, f)
			}
		}
	}
	for _, body := range []string{"## Anchors\n\n- [critical] x\n", "## ANCHORS\n- x\n", "Anchorſ\n-------\n\n- x\n"} {
		if !mayHoldAnchors([]byte(body)) {
			t.Errorf("mayHoldAnchors(%q) = false", body)
		}
	}
	if mayHoldAnchors([]byte("## Todos\n- [ ] a\n")) {
		t.Error("a body without the word holds anchors")
	}
}
