package command

import "testing"

func TestDidYouMean(t *testing.T) {
	cmds := []string{"list", "ls", "show", "create", "status", "start", "session", "todo", "drop", "done"}
	tests := []struct{ typed, want string }{
		{"lst", "list"},
		{"lsit", "list"},
		{"shwo", "show"},
		{"craete", "create"},
		{"stauts", "status"},
		{"frob", ""},
		{"reopen", ""},
		{"x", ""},
		{"st", ""},
		{"sesion", "session"},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.typed, cmds); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"list", "list", 0},
		{"lst", "list", 1}, {"stauts", "status", 1}, {"abc", "bca", 2}, {"kitten", "sitting", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
