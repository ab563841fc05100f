package domain

import "strings"

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
