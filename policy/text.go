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

// MaxTitleRunes is the longest title td accepts, in characters: a title
// is one line a board card, a list and a pull request show; what does not
// fit belongs in the description.
const MaxTitleRunes = 500

// invisibleNames names the characters a title may not hold because they
// make it read differently from what it is (Trojan Source, CVE-2021-42574):
// the bidirectional embeddings, overrides and isolates, the directional
// marks, and the zero-width characters that hide text or split a word.
var invisibleNames = map[rune]string{
	0x061C: "Arabic letter mark",
	0x200B: "zero-width space",
	0x200C: "zero-width non-joiner",
	0x200D: "zero-width joiner",
	0x200E: "left-to-right mark",
	0x200F: "right-to-left mark",
	0x202A: "left-to-right embedding",
	0x202B: "right-to-left embedding",
	0x202C: "pop directional formatting",
	0x202D: "left-to-right override",
	0x202E: "right-to-left override",
	0x2060: "word joiner",
	0x2066: "left-to-right isolate",
	0x2067: "right-to-left isolate",
	0x2068: "first strong isolate",
	0x2069: "pop directional isolate",
	0xFEFF: "zero-width no-break space",
}

// CheckTitle refuses a title CheckText refuses, one longer than
// MaxTitleRunes, and one holding a bidirectional control or a zero-width
// character (invisibleNames). A zero-width joiner or non-joiner between
// two characters outside ASCII is text (an emoji sequence, a Persian
// word) and is kept; next to ASCII, or at either end, it only hides.
func CheckTitle(s string) error {
	if err := CheckText("title", s); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s); n > MaxTitleRunes {
		return &TitleError{Msg: fmt.Sprintf("the title is %d characters, over the limit of %d; put the rest in the description", n, MaxTitleRunes)}
	}
	for i, r := range s {
		name, ok := invisibleNames[r]
		if !ok {
			continue
		}
		if r == 0x200C || r == 0x200D {
			before, _ := utf8.DecodeLastRuneInString(s[:i])
			after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if i > 0 && i+utf8.RuneLen(r) < len(s) && before >= utf8.RuneSelf && after >= utf8.RuneSelf && !IsInvisible(before) && !IsInvisible(after) {
				continue
			}
		}
		return &TitleError{Msg: fmt.Sprintf("the title contains an invisible character (U+%04X, %s) at byte %d: it would make the title read differently from what it is", r, name, i)}
	}
	return nil
}

// IsInvisible reports whether r is one of the characters CheckTitle
// refuses for hiding or reordering text.
func IsInvisible(r rune) bool { _, ok := invisibleNames[r]; return ok }

// TitleError is a title refused for its length or an invisible
// character.
type TitleError struct{ Msg string }

func (e *TitleError) Error() string { return e.Msg }
