package domain

import (
	"fmt"
	"strings"
)

// Words turns a list of domain words into plain strings, for code that
// matches user input against them.
func Words[T ~string](words []T) []string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = string(w)
	}
	return s
}

// JoinWords lists domain words for a message: "a, b, c".
func JoinWords[T ~string](words []T) string { return strings.Join(Words(words), ", ") }

// Plural is one when n is 1, else many: the word a message needs for a
// count.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// QuoteList lists texts for a message, each quoted as Go quotes a string:
// "a", "b".
func QuoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
