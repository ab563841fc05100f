package command

import (
	"bytes"
	"testing"
)

func TestC1Escaper(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"plain", []string{`{"t": "abc"}`}, `{"t": "abc"}`},
		{"CSI", []string{"\"a\u009bb\""}, `"a\u009bb"`},
		{"first and last C1", []string{"\u0080\u009f"}, `\u0080\u009f`},
		{"split between the two bytes", []string{"\"a\xc2", "\x9bb\""}, `"a\u009bb"`},
		{"other two-byte characters pass", []string{"é ¡ \u00a0"}, "é ¡ \u00a0"},
		{"0xC2 then a lead byte, split", []string{"\xc2", "\xa9"}, "©"},
		{"plain chunks around a split escape", []string{"a", "\xc2", "\x9b", "b"}, `a\u009bb`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e := &c1Escaper{w: &buf}
			for _, c := range tc.chunks {
				if n, err := e.Write([]byte(c)); err != nil || n != len(c) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
