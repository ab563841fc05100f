package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TextError is text refused because it holds a character that can drive a
// terminal: a C0 control other than tab and line feed (a carriage return
// only directly before a line feed), DEL, or a C1 control. ESC (U+001B)
// and CSI (U+009B) start every escape sequence, so refusing the controls
// refuses the sequences.
type TextError struct {
	// Field names what the text is, as the user knows it: "title",
	// "description", "comment", "todo text".
	Field string
	// Rune is the refused character.
	Rune rune
	// Offset is its byte offset in the text, from 0.
	Offset int
	// Invalid is set, and Rune is meaningless, when the byte at Offset
	// does not start a valid UTF-8 character: td's files are UTF-8.
	Invalid bool
}

// Error says which field holds which character where, e.g. "title
// contains a control character (U+001B) at byte 2".
func (e *TextError) Error() string {
	if e.Invalid {
		return fmt.Sprintf("%s is not valid UTF-8 at byte %d", e.Field, e.Offset)
	}
	return fmt.Sprintf("%s contains a control character (U+%04X) at byte %d", e.Field, e.Rune, e.Offset)
}

// IsControl reports whether r is a character text may not hold: C0 except
// tab and line feed, DEL, or C1. Carriage return is one; CheckText admits
// it only before a line feed.
func IsControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f)
}

// CheckText refuses text from a person or an agent (a title, a
// description, a comment, a todo) that holds a control character, so that
// what td stores can never drive the terminal of whoever reads it, or text
// that is not UTF-8: a *TextError naming field, the character and its
// byte offset, or nil.
// Tab and line feed are text, and so is a carriage return directly before
// a line feed (text written on Windows); whether a field may span lines is
// the caller's rule.
func CheckText(field, s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return &TextError{Field: field, Offset: i, Invalid: true}
			}
		}
		if r == '\r' && strings.HasPrefix(s[i+1:], "\n") {
			continue
		}
		if IsControl(r) {
			return &TextError{Field: field, Rune: r, Offset: i}
		}
	}
	return nil
}
