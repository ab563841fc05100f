package command

import "testing"

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"crlf\r\nkept", "crlf\r\nkept"},
		{"bare\rcr", `bare\x0dcr`},
		{"a \x1b]0;owned\x07 \x1b[31mred", `a \x1b]0;owned\x07 \x1b[31mred`},
		{"hide \x1b[8mme", `hide \x1b[8mme`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff byte", `bad \xff byte`},
		{"café ✓", "café ✓"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := safe(tt.in); got != tt.want {
			t.Errorf("safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
