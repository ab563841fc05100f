package command

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tdproject/td/policy"
)

// safe returns text read from td's files (a title, a body, a comment, a
// todo, a ledger entry) as it may reach a terminal: each control character
// that policy.CheckText refuses on input is written as a Go escape (\x1b,
// \u009b) and each byte that is not UTF-8 as \xNN, so a hand-edited file
// cannot move the cursor, retitle the window or hide text. Tab and line
// feed stay, and a carriage return directly before a line feed. Every
// text renderer passes file text through it; JSON output needs nothing, as
// encoding/json escapes control characters itself.
func safe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			b.WriteByte('\r')
		case policy.IsControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case policy.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether safe would change s.
func needsEscape(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return true
			}
		}
		if policy.IsControl(r) && (r != '\r' || !strings.HasPrefix(s[i+1:], "\n")) {
			return true
		}
	}
	return false
}

// safeAll is safe for each of ss.
func safeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safe(s)
	}
	return out
}
