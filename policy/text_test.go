package policy

import (
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" for accepted
	}{
		{"plain", "Sign in with GitHub", ""},
		{"tab and newline", "a\tb\nc", ""},
		{"CRLF", "line one\r\nline two\r\n", ""},
		{"non-ASCII", "café ✓ 日本", ""},
		{"U+00A0 and later", "a\u00a0b\u2028c", ""},
		{"empty", "", ""},
		{"OSC title", "a \x1b]0;owned\x07 \x1b[31mred", "title contains a control character (U+001B) at byte 2"},
		{"BEL", "ding\x07", "title contains a control character (U+0007) at byte 4"},
		{"NUL", "\x00", "title contains a control character (U+0000) at byte 0"},
		{"bare CR", "ok\rfake", "title contains a control character (U+000D) at byte 2"},
		{"CR at the end", "ok\r", "title contains a control character (U+000D) at byte 2"},
		{"backspace", "a\bb", "title contains a control character (U+0008) at byte 1"},
		{"vertical tab", "a\vb", "title contains a control character (U+000B) at byte 1"},
		{"DEL", "a\x7f", "title contains a control character (U+007F) at byte 1"},
		{"C1 CSI", "é\u009b31m", "title contains a control character (U+009B) at byte 2"},
		{"C1 NEL", "\u0085", "title contains a control character (U+0085) at byte 0"},
		{"C1 last", "\u009f", "title contains a control character (U+009F) at byte 0"},
		{"invalid UTF-8", "ok\x9b31m", "title is not valid UTF-8 at byte 2"},
		{"replacement character itself", "\ufffd", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := CheckText("title", tt.in); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("CheckText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCheckTitle(t *testing.T) {
	for _, tc := range []struct {
		name, title string
		want        string // "" for accepted
	}{
		{"plain", "Sign in with GitHub", ""},
		{"accents and CJK", "Menu du café, 日本語", ""},
		{"exactly the limit", strings.Repeat("é", MaxTitleRunes), ""},
		{"over the limit", strings.Repeat("a", MaxTitleRunes+1), "the title is 501 characters, over the limit of 500; put the rest in the description"},
		{"right-to-left override", "Fix \u202Eexe.txt", "the title contains an invisible character (U+202E, right-to-left override) at byte 4: it would make the title read differently from what it is"},
		{"isolate", "a\u2066b", "the title contains an invisible character (U+2066, left-to-right isolate) at byte 1: it would make the title read differently from what it is"},
		{"zero-width space", "pass\u200Bword", "the title contains an invisible character (U+200B, zero-width space) at byte 4: it would make the title read differently from what it is"},
		{"byte order mark", "\uFEFFTitle", "the title contains an invisible character (U+FEFF, zero-width no-break space) at byte 0: it would make the title read differently from what it is"},
		{"joiner inside an ASCII word", "ad\u200Dmin", "the title contains an invisible character (U+200D, zero-width joiner) at byte 2: it would make the title read differently from what it is"},
		{"joiner at the end", "family 👨\u200D", "the title contains an invisible character (U+200D, zero-width joiner) at byte 11: it would make the title read differently from what it is"},
		{"emoji sequence", "family 👨\u200D👩\u200D👧", ""},
		{"Persian non-joiner", "می\u200Cخواهم", ""},
		{"control first", "a\x1b[31m", "title contains a control character (U+001B) at byte 1"},
	} {
		err := CheckTitle(tc.title)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: CheckTitle = %q, want %q", tc.name, got, tc.want)
		}
	}
}
