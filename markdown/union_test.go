package markdown

import "testing"

func TestUnionLines(t *testing.T) {
	tests := []struct{ name, base, ours, theirs, want string }{
		{"both appended", "a\n", "a\nb\n", "a\nc\n", "a\nb\nc\n"},
		{"the same line appended on both is kept once", "a\n", "a\nb\n", "a\nb\n", "a\nb\n"},
		{"a line added twice on one side stays twice", "a\n", "a\n", "a\nb\nb\n", "a\nb\nb\n"},
		{"a base line repeated by theirs is theirs' addition", "a\n", "a\n", "a\na\n", "a\na\n"},
		{"no final newline on ours", "a\n", "a\nb", "a\nc", "a\nb\nc\n"},
		{"added on both sides with no base", "", "x\n", "y\n", "x\ny\n"},
		{"theirs unchanged", "a\n", "a\nb\n", "a\n", "a\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(UnionLines([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs))); got != tt.want {
				t.Fatalf("UnionLines = %q, want %q", got, tt.want)
			}
		})
	}
}
