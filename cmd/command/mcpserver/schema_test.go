package mcpserver

import "testing"

// TestEscapeC1: the C1 controls of an answer go out as \u0080 to \u009f,
// everything else as encoding/json wrote it.
func TestEscapeC1(t *testing.T) {
	for in, want := range map[string]string{
		`{"title":"plain"}`:               `{"title":"plain"}`,
		"{\"title\":\"a\u009b31m\"}":      `{"title":"a\u009b31m"}`,
		"{\"t\":\"\u0080\u009f\u00a0é\"}": "{\"t\":\"\\u0080\\u009f\u00a0é\"}",
	} {
		if got := string(escapeC1([]byte(in))); got != want {
			t.Errorf("escapeC1(%q) = %q, want %q", in, got, want)
		}
	}
	b, err := marshal(map[string]string{"title": "Sign in \u009b31m"})
	if err != nil || string(b) != `{"title":"Sign in \u009b31m"}` {
		t.Errorf("marshal: %s, %v", b, err)
	}
}
