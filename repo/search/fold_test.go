package search

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestContainsFold(t *testing.T) {
	tests := []struct {
		text, word string
		want       bool
	}{
		{"Retry the WebHook", "webhook", true},
		{"Retry the WebHoo", "webhook", false},
		{"webhook", "webhook", true},
		{"", "a", false},
		{"abc", "", true},
		{"WWWebhook", "webhook", true},
		{"w", "webhook", false},
		{"td-12ab: 500 errors", "500", true},
		{"see ./cmd/td", "./cmd/td", true},
		{"CAFÉ au lait", "cafe", true}, // accents off
		{"Café au lait", "cafe", true},
		{"naïve Ångström", "angstrom", true},
		{"Große Straße", "strasse", true},
		{"日本語のテキスト", "テキスト", true},          // a word that is not Latin
		{"200 \u212Aelvin", "kelvin", true}, // the Kelvin sign lowers to k
		{"\u0130stanbul", "istanbul", true}, // the dotted capital I lowers to i
		{"caf\xffe", "cafe", false},         // invalid UTF-8 joins nothing
		{"Zebra zEBRA", "zebra", true},
		{"[zebra]", "[z", true},
	}
	for _, tt := range tests {
		if got := containsFold([]byte(tt.text), tt.word); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.text, tt.word, got, tt.want)
		}
		if ref := strings.Contains(Fold(tt.text), tt.word); ref != tt.want {
			t.Errorf("the folded copy of %q holds %q: %v, the table says %v", tt.text, tt.word, ref, tt.want)
		}
	}
}

// FuzzContainsFold holds containsFold to the folded copy it replaces.
func FuzzContainsFold(f *testing.F) {
	f.Add("Retry the WebHook", "WebHook")
	f.Add("200 \u212Aelvin", "kelvin")
	f.Add("\u0130stanbul", "Istanbul")
	f.Add("caf\xffe", "cafe")
	f.Add("Café au lait", "CAFE")
	f.Fuzz(func(t *testing.T, text, query string) {
		for _, w := range Words(query) {
			want := strings.Contains(Fold(text), w)
			if got := containsFold([]byte(text), w); got != want {
				t.Fatalf("containsFold(%q, %q) = %v, the folded copy says %v", text, w, got, want)
			}
		}
	})
}

// TestOnlyTwoLettersLowerToASCII checks containsFold's premise against
// every rune: no other non-ASCII letter lowers to an ASCII one.
func TestOnlyTwoLettersLowerToASCII(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); l < utf8.RuneSelf && r != 0x212A && r != 0x0130 {
			t.Errorf("%U lowers to %q: containsFold must take the lowered copy for it", r, l)
		}
	}
}
