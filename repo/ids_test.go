package repo

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
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
		got, err := NormalizeRef(tt.ref)
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
	a, _ := src.Suffix(6)
	seq = 0
	b, _ := src.Suffix(6)
	if a != b || len(a) != 6 {
		t.Fatalf("seeded suffixes %q and %q should be equal and 6 long", a, b)
	}
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s, err := idSource{}.Suffix(6)
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

// The hand-written validators must accept exactly what these patterns do.
var (
	prefixPattern    = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)
	issueIDPattern   = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}-[0-9a-z]{6}$`)
	sessionIDPattern = regexp.MustCompile(`^ses_[0-9a-z]{8}$`)
	refPattern       = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,40}$`)
	agentPattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}(\.[a-z0-9][a-z0-9_-]{0,63}){0,15}$`)
)

func checkValidators(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  bool
		re   *regexp.Regexp
	}{
		{"ValidPrefix", ValidPrefix(s), prefixPattern},
		{"ValidIssueID", ValidIssueID(s), issueIDPattern},
		{"ValidSessionID", ValidSessionID(s), sessionIDPattern},
		{"validRef", validRef(s), refPattern},
		{"AgentPath.Valid", domain.AgentPath(s).Valid(), agentPattern},
	} {
		if want := c.re.MatchString(s); c.got != want {
			t.Errorf("%s(%q) = %v, the pattern says %v", c.name, s, c.got, want)
		}
	}
}

func TestValidatorsMatchTheirPatterns(t *testing.T) {
	alphabet := "az09-_.sesA/ "
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []string{"", "td", "td-abc123", "ses_abcd1234", "a.b.c", "-x", "x-", "a..b",
		strings.Repeat("a", 16), strings.Repeat("a", 17), strings.Repeat("a", 41), strings.Repeat("a", 42),
		strings.Repeat("a.", 15) + "a", strings.Repeat("a.", 16) + "a"} {
		checkValidators(t, s)
	}
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.IntN(24))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		checkValidators(t, string(b))
	}
}

func FuzzValidators(f *testing.F) {
	for _, s := range []string{"td-abc123", "ses_abcd1234", "primary.subagents.ui", "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkValidators(t, s) })
}
