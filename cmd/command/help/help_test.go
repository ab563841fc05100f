package help

import (
	"regexp"
	"strings"
	"testing"
)

func TestTopicsLoad(t *testing.T) {
	ts, err := Topics()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 6 {
		t.Fatalf("got %d topics, want the reference pages (format, policy, sessions, …)", len(ts))
	}
	name := regexp.MustCompile(`^[a-z][a-z-]*$`)
	for i, tp := range ts {
		if !name.MatchString(tp.Name) {
			t.Errorf("topic %q: names are lower-case words, typed after td help", tp.Name)
		}
		if i > 0 && ts[i-1].Name >= tp.Name {
			t.Errorf("topics out of order: %q before %q", ts[i-1].Name, tp.Name)
		}
		if tp.Summary == "" || strings.Contains(tp.Summary, "\n") {
			t.Errorf("topic %s: summary %q must be one line", tp.Name, tp.Summary)
		}
		if !strings.HasPrefix(tp.Markdown, "# ") {
			t.Errorf("topic %s: the page starts with its # title, got %.40q", tp.Name, tp.Markdown)
		}
		got, ok, err := Lookup(tp.Name)
		if err != nil || !ok || got != tp {
			t.Errorf("Lookup(%q) = %v, %v, %v; want the topic Topics lists", tp.Name, got.Name, ok, err)
		}
	}
	for _, bad := range []string{"", "nosuch", "../help", "format.md", "topics/format"} {
		if _, ok, err := Lookup(bad); ok || err != nil {
			t.Errorf("Lookup(%q) = %v, %v; want no topic and no error", bad, ok, err)
		}
	}
	if got := Names(); len(got) != len(ts) || got[0] != ts[0].Name {
		t.Errorf("Names() = %v, want the names of %d topics", got, len(ts))
	}
}

// Every page renders to plain text: no markdown syntax left outside code
// blocks, no trailing spaces, and no fence left open.
func TestTopicsRenderPlainly(t *testing.T) {
	ts, err := Topics()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range ts {
		if strings.Count(tp.Markdown, "```")%2 != 0 {
			t.Errorf("topic %s: a code fence is not closed", tp.Name)
		}
		out := Render(tp.Markdown)
		for n, line := range strings.Split(out, "\n") {
			if line != strings.TrimRight(line, " \t") {
				t.Errorf("topic %s line %d has trailing space: %q", tp.Name, n+1, line)
			}
			if strings.HasPrefix(line, codeIndent) {
				continue
			}
			for _, mark := range []string{"```", "`", "| ---", "# "} {
				if strings.HasPrefix(strings.TrimSpace(line), mark) || (mark != "# " && strings.Contains(line, mark)) {
					t.Errorf("topic %s line %d keeps markdown %q: %q", tp.Name, n+1, mark, line)
				}
			}
		}
	}
}

func TestSplitFrontmatter(t *testing.T) {
	for _, tc := range []struct{ in, summary, body, err string }{
		{in: "---\nsummary: a page\n---\n\n# Title\n", summary: "a page", body: "# Title\n"},
		{in: "# Title\n", err: "no frontmatter"},
		{in: "---\nsummary: x\n# Title\n", err: "no closing"},
		{in: "---\ntitle: x\n---\n# Title\n", err: "no summary"},
	} {
		s, b, err := splitFrontmatter([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("splitFrontmatter(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || s != tc.summary || b != tc.body {
			t.Errorf("splitFrontmatter(%q) = %q, %q, %v; want %q, %q", tc.in, s, b, err, tc.summary, tc.body)
		}
	}
}
