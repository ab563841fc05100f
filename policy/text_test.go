package policy

import "testing"

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
