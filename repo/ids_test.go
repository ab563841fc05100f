package repo

import (
	"strings"
	"testing"
)

func TestValidIssueID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"td-k3x9qa", true},
		{"web-000000", true},
		{"abcdefghijklmnop-zzzzzz", true},
		{"td-k3x9q", false},          // five characters
		{"td-k3x9qaa", false},        // seven
		{"TD-K3X9QA", false},         // upper case is normalised before validation
		{"9d-k3x9qa", false},         // prefix starts with a digit
		{"td_k3x9qa", false},         // wrong separator
		{"../td-k3x9qa", false},      // path traversal
		{"td-k3x9qa/../../x", false}, // path traversal
		{"td-k3x9q.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidIssueID(tt.id); got != tt.want {
			t.Errorf("ValidIssueID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNormalizeRefRefusesPaths(t *testing.T) {
	tests := []struct {
		ref  string
		want string // "" means refused
	}{
		{"td-k3x9qa", "td-k3x9qa"},
		{"  TD-K3X  ", "td-k3x"},
		{"k3x", "k3x"},
		{"../../etc/passwd", ""},
		{"td-k3x9qa/..", ""},
		{`..\..\x`, ""},
		{"td-k3x9qa.md", ""},
		{"", ""},
		{"-rf", ""},
		{strings.Repeat("a", 60), ""},
	}
	for _, tt := range tests {
		got, err := normalizeRef(tt.ref)
		if tt.want == "" {
			if err == nil {
				t.Errorf("normalizeRef(%q) = %q, want a refusal", tt.ref, got)
			} else if CodeOf(err) != CodeInvalid {
				t.Errorf("normalizeRef(%q) code = %s, want %s", tt.ref, CodeOf(err), CodeInvalid)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("normalizeRef(%q) = %q, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
}

func TestSeededIDsAreDeterministicAndRandomOnesDiffer(t *testing.T) {
	seq := uint64(0)
	src := idSource{seed: "s", next: func() (uint64, error) { seq++; return seq, nil }}
	a, _ := src.suffix(6)
	seq = 0
	b, _ := src.suffix(6)
	if a != b || len(a) != 6 {
		t.Fatalf("seeded suffixes %q and %q should be equal and 6 long", a, b)
	}
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s, err := idSource{}.suffix(6)
		if err != nil {
			t.Fatal(err)
		}
		if !ValidIssueID("td-" + s) {
			t.Fatalf("random suffix %q is not valid", s)
		}
		seen[s] = true
	}
	if len(seen) < 995 {
		t.Fatalf("only %d distinct suffixes in 1000 draws", len(seen))
	}
}

func TestValidAgentPath(t *testing.T) {
	for p, want := range map[string]bool{
		"primary": true, "primary.subagents.ui": true, "a-b_c.d1": true,
		"": false, "Primary": false, "primary.": false, ".primary": false, "a..b": false, "a b": false,
	} {
		if got := ValidAgentPath(p); got != want {
			t.Errorf("ValidAgentPath(%q) = %v, want %v", p, got, want)
		}
	}
}
