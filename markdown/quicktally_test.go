package markdown

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// parsedTally is what QuickTally must equal: the parse's count, without
// its Active item.
func parsedTally(body []byte) domain.Summary {
	s := Summarize(ParseChecklist(body).Items())
	s.Active = nil
	return s
}

// checkQuickTally holds QuickTally to the parse on one body.
func checkQuickTally(t *testing.T, body []byte) bool {
	t.Helper()
	got, ok := QuickTally(body)
	if !ok {
		return false
	}
	if want := parsedTally(body); got != want {
		t.Fatalf("QuickTally(%q) = %+v, the parse counts %+v", body, got, want)
	}
	return true
}

func TestQuickTally(t *testing.T) {
	const plain = "Some text about the issue.\nIt goes on (a second line).\n\n" +
		"## Acceptance criteria\n\n- [x] One\n- [ ] Two\n- [-] Dropped\n\n" +
		"## Todos\n\n### Phase 1: look\n- [x] a\n- [/] b\n  > a note\n  > more of it\n- [!] c\n" +
		"lazy text of c\n- plain item\n  - [x] nested, not counted\n\n### Phase 2 (from ses_a/b)\n- [ ] d\n\n" +
		"## Notes\n\n- [x] not a todo: outside the sections\n"
	tests := []struct {
		name string
		body string
		ok   bool // QuickTally reads it itself
	}{
		{"td's shape", plain, true},
		{"empty", "", true},
		{"no sections", "text\n- [x] a\n", true},
		{"second Todos heading is no section", "## Todos\n- [x] a\n## todos\n- [x] b\n", true},
		{"a level-3 heading keeps the section", "## Todos\n### Later\n- [ ] a\n", true},
		{"a level-1 heading ends it", "## Todos\n# Other\n- [ ] a\n", true},
		{"marker at the line's end", "## Todos\n- [x]\n- [ ]", true},
		{"marker without a space", "## Todos\n- [x]a\n", true},
		{"unknown marker", "## Todos\n- [?] a\n", true},
		{"a paragraph after a blank line ends the list", "## Todos\n- [x] a\n\nText.\n- [ ] b\n", true},
		{"criteria heading any case", "## ACCEPTANCE CRITERIA\n- [x] a\n", true},

		{"fenced code", "## Todos\n```\n- [x] a\n```\n", false},
		{"tilde fence", "## Todos\n~~~\n- [x] a\n~~~\n", false},
		{"html block", "## Todos\n<!--\n- [x] a\n-->\n", false},
		{"indented html", "## Todos\n- [x] a\n  <div>\n", false},
		{"setext heading", "Todos\n---\n- [x] a\n", false},
		{"setext under an item", "## Todos\n- [x] a\n  ===\n", false},
		{"thematic break", "## Todos\n- [x] a\n***\n", false},
		{"block quote at the margin", "## Todos\n> - [x] a\n", false},
		{"ordered list", "## Todos\n1. [x] a\n", false},
		{"star bullet", "## Todos\n* [x] a\n", false},
		{"wide bullet", "## Todos\n-  [x] a\n", false},
		{"one-space indent", "## Todos\n- [x] a\n - [ ] b\n", false},
		{"indent outside an item", "## Todos\n  - [x] a\n", false},
		{"tab", "## Todos\n-\t[x] a\n", false},
		{"carriage return", "## Todos\r\n- [x] a\r\n", false},
		{"closing hashes", "## Todos ##\n- [x] a\n", false},
		{"escaped heading", "## Todos\\\n- [x] a\n", false},
		{"heading without a space", "##Todos\n- [x] a\n", false},
		{"empty heading", "##\n- [x] a\n", false},
		{"empty item", "## Todos\n-\n- [x] a\n", false},
		{"item of markup", "## Todos\n- **bold**\n", false},
		{"paragraph of markup", "## Todos\n*a*\n", false},
		{"nul", "## Todos\n- [x] a\x00\n", false},
		{"invalid UTF-8", "## Todos\n- [x] \xff\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if ok := checkQuickTally(t, []byte(tc.body)); ok != tc.ok {
				t.Fatalf("QuickTally read it itself: %v, want %v", ok, tc.ok)
			}
		})
	}
	if s, _ := QuickTally([]byte(plain)); s != (domain.Summary{Done: 1, Open: 2, Blocked: 1, CriteriaTotal: 2, CriteriaDone: 1}) {
		t.Fatalf("td's shape counts %+v", s)
	}
}

// TestQuickTallyOnTdsOwnIssues: td's own roadmap is written the way td
// writes issues, and every file of it must be counted without a parse.
func TestQuickTallyOnTdsOwnIssues(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", ".todos", "issues", "*.md"))
	if len(files) == 0 {
		t.Skip("no .todos/issues here")
	}
	quick := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if checkQuickTally(t, f.Body) {
			quick++
		}
	}
	if quick*10 < len(files)*9 {
		t.Fatalf("only %d of %d of td's own issues were counted without a parse", quick, len(files))
	}
}

// FuzzQuickTally: whenever QuickTally reads a body itself, its count is
// the parse's.
func FuzzQuickTally(f *testing.F) {
	f.Add([]byte(specBody))
	f.Add([]byte("## Todos\n- [x] a\n  > n\nlazy\n\n- [ ] b\n  - [x] c\n## Acceptance criteria\n- [-] d\n"))
	// Text at the margin under an item's heading is no lazy line: the
	// item ends, and the indented item after it is one of the root's.
	f.Add([]byte("## Acceptance criteria\n- [x]h\n  # inner\n(aside)\n   - [ ] nested\n- [ ]\n## Todos\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkQuickTally(t, body)
		// The same body with every line break doubled or indented is a
		// different shape: try those too.
		checkQuickTally(t, []byte(strings.ReplaceAll(string(body), "\n", "\n  ")))
	})
}

// TestQuickTallyOnRandomShapes builds bodies from the lines td writes and
// a few that look like them, so that most are in QuickTally's shape, and
// holds each count to the parse.
func TestQuickTallyOnRandomShapes(t *testing.T) {
	lines := []string{
		"", "", "## Todos", "## Acceptance criteria", "## todos", "## Notes", "# Todos", "### Phase 1",
		"### Todos", "## Acceptance Criteria ", "##  Todos",
		"- [ ] a", "- [x] b", "- [X] c", "- [/] d", "- [-] e", "- [!] f", "- [?] g", "- [x]", "- [ ]",
		"- [x]h", "- [ ]: i", "- plain", "- [link]: /u", "- 1. x", "- # h",
		"  > note", "  > > deep", "  text", "    code", "  - [x] nested", "   - [ ] nested", "  # inner",
		"  1. inner", "  - inner", "      - [x] code",
		"Text", "2026 text", "1.5 text", "(aside)", "\"quote\"", "'q'", "été",
	}
	rng := rand.New(rand.NewPCG(7, 11))
	quick := 0
	const n = 50000
	for range n {
		var b strings.Builder
		for range rng.IntN(14) {
			b.WriteString(lines[rng.IntN(len(lines))])
			b.WriteByte('\n')
		}
		body := b.String()
		if rng.IntN(4) == 0 {
			body = strings.TrimSuffix(body, "\n")
		}
		if checkQuickTally(t, []byte(body)) {
			quick++
		}
	}
	if quick < n/3 {
		t.Fatalf("only %d of %d bodies were in QuickTally's shape: the test no longer tests it", quick, n)
	}
}
