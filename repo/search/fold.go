package search

import (
	"bytes"
	"unicode/utf8"
)

// containsFold reports whether text holds word, a word of Words (lower
// case), in any case: what bytes.Contains(bytes.ToLower(text), word)
// says, without lowering a copy of the text. A search reads every issue
// file, and lowering each byte of 10,000 files one at a time cost more than
// reading them; this looks for the word's first letter in both cases with
// bytes.IndexByte, which scans many bytes at once, and compares the rest
// folded. Two non-ASCII letters lower to ASCII ones (the Kelvin sign to
// k, the dotted capital I to i); a text holding either, and a word that is
// not ASCII, take the lowered copy.
func containsFold(text []byte, word string) bool {
	if word == "" {
		return true
	}
	if !isASCII(word) || bytes.Contains(text, kelvin) || bytes.Contains(text, dottedI) {
		return bytes.Contains(bytes.ToLower(text), []byte(word))
	}
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
