package search

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold is the form a search compares text in: lower case, with the
// accents taken off Latin letters (é to e, ø to o, ß to ss) and combining
// marks dropped, so "cafe" finds "Café" and "café" finds "CAFE". Text
// without accents is only lowered.
func Fold(s string) string {
	lowered := strings.ToLower(s)
	if isASCII(lowered) {
		return lowered
	}
	var b strings.Builder
	b.Grow(len(lowered))
	for _, r := range lowered {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if f, ok := accentFold[r]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// accentFold maps the lower-case precomposed Latin letters (Latin-1,
// Latin Extended-A and B) to the ASCII letters they are read as.
var accentFold = map[rune]string{
	'ß': "ss", 'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a",
	'å': "a", 'æ': "ae", 'ç': "c", 'è': "e", 'é': "e", 'ê': "e", 'ë': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ñ': "n", 'ò': "o", 'ó': "o",
	'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ù': "u", 'ú': "u", 'û': "u",
	'ü': "u", 'ý': "y", 'ÿ': "y", 'ā': "a", 'ă': "a", 'ą': "a", 'ć': "c",
	'ĉ': "c", 'ċ': "c", 'č': "c", 'ď': "d", 'đ': "d", 'ē': "e", 'ĕ': "e",
	'ė': "e", 'ę': "e", 'ě': "e", 'ĝ': "g", 'ğ': "g", 'ġ': "g", 'ģ': "g",
	'ĥ': "h", 'ħ': "h", 'ĩ': "i", 'ī': "i", 'ĭ': "i", 'į': "i", 'ı': "i",
	'ĵ': "j", 'ķ': "k", 'ĺ': "l", 'ļ': "l", 'ľ': "l", 'ł': "l", 'ń': "n",
	'ņ': "n", 'ň': "n", 'ō': "o", 'ŏ': "o", 'ő': "o", 'œ': "oe", 'ŕ': "r",
	'ŗ': "r", 'ř': "r", 'ś': "s", 'ŝ': "s", 'ş': "s", 'š': "s", 'ţ': "t",
	'ť': "t", 'ŧ': "t", 'ũ': "u", 'ū': "u", 'ŭ': "u", 'ů': "u", 'ű': "u",
	'ų': "u", 'ŵ': "w", 'ŷ': "y", 'ź': "z", 'ż': "z", 'ž': "z", 'ơ': "o",
	'ư': "u", 'ǎ': "a", 'ǐ': "i", 'ǒ': "o", 'ǔ': "u", 'ǖ': "u", 'ǘ': "u",
	'ǚ': "u", 'ǜ': "u", 'ǟ': "a", 'ǡ': "a", 'ǧ': "g", 'ǩ': "k", 'ǫ': "o",
	'ǭ': "o", 'ǰ': "j", 'ǵ': "g", 'ǹ': "n", 'ǻ': "a", 'ȁ': "a", 'ȃ': "a",
	'ȅ': "e", 'ȇ': "e", 'ȉ': "i", 'ȋ': "i", 'ȍ': "o", 'ȏ': "o", 'ȑ': "r",
	'ȓ': "r", 'ȕ': "u", 'ȗ': "u", 'ș': "s", 'ț': "t", 'ȟ': "h", 'ȧ': "a",
	'ȩ': "e", 'ȫ': "o", 'ȭ': "o", 'ȯ': "o", 'ȱ': "o", 'ȳ': "y",
}

// hasNonASCII reports whether b holds a byte outside ASCII, eight bytes
// at a time.
func hasNonASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// containsFold reports whether text holds word, a word of Words (lower
// case), in any case: what bytes.Contains(bytes.ToLower(text), word)
// says, without lowering a copy of the text. A search reads every issue
// file, and lowering each byte of 10,000 files one at a time cost more than
// reading them; this looks for the word's first letter in both cases with
// bytes.IndexByte, which scans many bytes at once, and compares the rest
// folded. Two non-ASCII letters lower to ASCII ones (the Kelvin sign to
// k, the dotted capital I to i); a text holding either, and a word that is
// not ASCII, take the lowered copy. A text with letters outside ASCII
// that the fast path does not match is compared folded (Fold), accents off.
func containsFold(text []byte, word string) bool {
	if word == "" {
		return true
	}
	if !isASCII(word) || bytes.Contains(text, kelvin) || bytes.Contains(text, dottedI) {
		return strings.Contains(Fold(string(text)), word)
	}
	if containsFoldASCII(text, word) {
		return true
	}
	return hasNonASCII(text) && strings.Contains(Fold(string(text)), word)
}

// containsFoldASCII is containsFold for an ASCII word, matching ASCII
// letters of the text only.
func containsFoldASCII(text []byte, word string) bool {
	first := word[0]
	cases := []byte{first}
	if 'a' <= first && first <= 'z' {
		cases = append(cases, first-'a'+'A')
	}
	for _, c := range cases {
		rest := text
		for len(rest) >= len(word) {
			i := bytes.IndexByte(rest, c)
			if i < 0 || len(rest)-i < len(word) {
				break
			}
			if equalFoldASCII(rest[i+1:i+len(word)], word[1:]) {
				return true
			}
			rest = rest[i+1:]
		}
	}
	return false
}

// The UTF-8 of the two non-ASCII letters whose lower case is ASCII.
var (
	kelvin  = []byte(string(rune(0x212A)))
	dottedI = []byte(string(rune(0x0130)))
)

// equalFoldASCII reports whether b, lowered, is lower (ASCII lower case).
func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
