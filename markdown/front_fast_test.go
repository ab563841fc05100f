package markdown

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// slowFront parses raw the way parseFront does without the fast path: one
// yaml.v3 document, and nothing after it.
func slowFront(raw []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		return nil, err
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); err != io.EOF {
		return nil, fmt.Errorf("a second document follows (%v)", err)
	}
	return &doc, nil
}

// nodeDiff describes the first difference between two node trees, field by
// field, or returns "" when they are identical.
func nodeDiff(path string, a, b *yaml.Node) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: nil node %v vs %v", path, a == nil, b == nil)
		}
		return ""
	}
	for _, f := range []struct {
		name string
		x, y any
	}{
		{"Kind", a.Kind, b.Kind},
		{"Style", a.Style, b.Style},
		{"Tag", a.Tag, b.Tag},
		{"Value", a.Value, b.Value},
		{"Anchor", a.Anchor, b.Anchor},
		{"Line", a.Line, b.Line},
		{"Column", a.Column, b.Column},
		{"HeadComment", a.HeadComment, b.HeadComment},
		{"LineComment", a.LineComment, b.LineComment},
		{"FootComment", a.FootComment, b.FootComment},
		{"len(Content)", len(a.Content), len(b.Content)},
	} {
		if f.x != f.y {
			return fmt.Sprintf("%s: %s %#v vs %#v", path, f.name, f.x, f.y)
		}
	}
	if d := nodeDiff(path+".Alias", a.Alias, b.Alias); d != "" {
		return d
	}
	for i := range a.Content {
		if d := nodeDiff(fmt.Sprintf("%s[%d]", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	if !reflect.DeepEqual(a, b) {
		return path + ": the nodes differ in a field not compared above"
	}
	return ""
}

// checkFast fails t when the fast path accepts raw and yaml.v3 does not
// read it as the same tree. It reports whether the fast path accepted.
func checkFast(t *testing.T, raw []byte) bool {
	t.Helper()
	fast, ok := parseFast(raw)
	if !ok {
		return false
	}
	slow, err := slowFront(raw)
	if err != nil {
		t.Fatalf("the fast path accepts %q but yaml.v3 reports: %v", raw, err)
	}
	if d := nodeDiff("doc", fast, slow); d != "" {
		t.Fatalf("the fast path reads %q differently from yaml.v3: %s (fast vs yaml.v3)", raw, d)
	}
	return true
}

// FuzzFrontFast checks on any text that whenever the fast path accepts a
// frontmatter, yaml.v3 reads it as one document with an identical node tree,
// and that parseFront gives the same result with and without it.
func FuzzFrontFast(f *testing.F) {
	f.Add([]byte(strings.TrimPrefix(strings.TrimSuffix(canonical, "---\n"), "---\n")))
	for _, tc := range fastCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !checkFast(t, raw) {
			return
		}
		fm, err := parseFront(raw, "\n", 2)
		noFast = true
		slow, slowErr := parseFront(raw, "\n", 2)
		noFast = false
		if (err == nil) != (slowErr == nil) || err != nil && err.Error() != slowErr.Error() {
			t.Fatalf("parseFront(%q) = %v with the fast path and %v without", raw, err, slowErr)
		}
		if err == nil && (!reflect.DeepEqual(fm.Keys(), slow.Keys()) || fm.layout != slow.layout || fm.indent != slow.indent) {
			t.Fatalf("parseFront(%q) differs with the fast path", raw)
		}
	})
}

// fastCases are scalars and layouts near the edges of the subset, each
// with whether the fast path reads it.
var fastCases = []struct {
	raw    string
	accept bool
}{
	{"id: td-k3x9qa\n", true},
	{"title: Fix the login [urgent] {now} a:b\n", true},
	{"title: \"Fix #12: \\\"quoted\\\" \\\\ tab\\t nl\\n \\x41\\u00e9\\U0001F600\"\n", true},
	{"title: \"  spaced  \"\n", true},
	{"title: Ünïcödé 日本語 🎉\n", true},
	{"n: 12\nz: 0\nbig: 123456789012345678\n", true},
	{"b: true\nc: False\nd: NULL\ne: yes\nf: no\ng: on\nh: y\n", true},
	{"created_at: 2026-11-21T10:04:11Z\n", true},
	{"created_at: 2026-02-30T10:04:11Z\n", false},
	{"created_at: 2026-11-21T10:04:11+01:00\n", false},
	{"created_at: 2026-11-21\n", true},
	{"created_at: 2026-13-21\n", false},
	{"created_at: 2026-1-21\n", false},
	{"n: 012\n", false},
	{"n: 1_000\n", false},
	{"n: 1e3\n", false},
	{"n: 1234567890123456789\n", false},
	{"labels: []\nlinks: [{kind: child_of, to: td-qkm5oz}]\n", true},
	{"labels: [a b, \"c, d\", é]\n", true},
	{"m: {}\nm2: {a: 1, b: \"x\"}\n", true},
	{"links:\n  - {kind: child_of, to: td-a0b1c2}\n  - {kind: blocked_by, to: td-jv9dom}\nnext: x\n", true},
	{"x-links:\n    - https://example.com/a\n    - https://example.com/b\n", true},
	{"l:\n- a\n- [b, c]\n- \"d\"\n", true},
	{"l:\n  - a\n    b\n", false},
	{"l:\n  - a\n   - b\n", false},
	{"l:\n", false},
	{"a: 1\n\nb: 2\n", true},
	{"a: 1\n\n\nb: 2\n\n", true},
	{"\na: 1\n", false},
	{"l:\n  - a\n\nb: 2\n", true},
	{"l: []\n\nm:\n  - {kind: child_of, to: td-a0b1c2}\n", true},
	{"a:\n\n  - x\n", false},
	{"a: 1\n \nb: 2\n", false},
	{"a: 1\n\r\nb: 2\n", false},
	{"\n", false},
	{"\n\n", false},
	{"a: 1 # comment\n", false},
	{"a: &x 1\n", false},
	{"a: !!str 1\n", false},
	{"a: 'single'\n", false},
	{"a: |\n  block\n", false},
	{"a: 1\na: 2\n", false},
	{"a: {k: 1, k: 2}\n", false},
	{"a: [[1]]\n", false},
	{"a: b: c\n", false},
	{"a: b\r\n", false},
	{"a:\tb\n", false},
	{"a: b \n", false},
	{"a: b", false},
	{"---\na: b\n", false},
	{"a: b\n...\n", false},
	{"true: b\n", false},
	{"a: \"\\/\"\n", false},
	{"a: \"\\ud800\"\n", false},
	{"a: \"x\ny\"\n", false},
	{"a: ~\n", false},
	{"a: .5\n", false},
	{"a: -1\n", false},
	{"a: <<\n", false},
	{"", false},
}

// TestFrontFastCases pins the cases: each is read exactly as yaml.v3 reads
// it, or declined.
func TestFrontFastCases(t *testing.T) {
	for _, tc := range fastCases {
		raw := []byte(tc.raw)
		if got := checkFast(t, raw); got != tc.accept {
			t.Errorf("fast path on %q: accepted %v, want %v", tc.raw, got, tc.accept)
		}
	}
}

// TestFrontFastWriterShapes checks that the fast path accepts every shape
// td's own writer produces, so that reading td's files keeps the speedup:
// a frontmatter built with the canonical value builders, with strings that
// need quoting and escapes, and each key set again one at a time.
func TestFrontFastWriterShapes(t *testing.T) {
	titles := []string{
		"Sign in with GitHub", "", "true", "null", "12", "1.5", "Fix #12: crash", "a: b",
		"say \"hi\"", `back\slash`, " padded ", "tab\there", "two\nlines", "日本語 🎉",
		"- dash", "[bracket]", "{brace}", "50% off", "@user", "`code`", "é", "2026-11-21",
		"\u0085nel", "bom\uFEFF", "ctrl\x01", "it's", "x,y", "a?b", "?q",
	}
	for _, title := range titles {
		grouped, err := BuildFrontmatterGroups([][]KeyValue{
			{{"id", Str("td-k3x9qa")}, {"title", Str(title)}},
			{{"status", Str("open")}, {"assignee", Str("")}},
			{{"labels", BlockStrings([]string{"auth", title})}},
			{{"empty_labels", BlockStrings(nil)}},
			{{"links", FlowMaps([][][2]string{{{"kind", "child_of"}, {"to", title}}})}},
		})
		if err != nil {
			t.Fatalf("title %q: %v", title, err)
		}
		if !checkFast(t, grouped.raw) {
			t.Errorf("the fast path declines the grouped frontmatter td writes for title %q:\n%s", title, grouped.raw)
		}
		fm, err := BuildFrontmatter([]KeyValue{
			{"id", Str("td-k3x9qa")},
			{"title", Str(title)},
			{"status", Str("open")},
			{"priority", Str("P2")},
			{"minor", Bool(true)},
			{"labels", FlowStrings([]string{"auth", title, "ui"})},
			{"implementer", Str("")},
			{"assignee", Str("session:ses_7hq2m4p1")},
			{"links", FlowMaps([][][2]string{{{"kind", "child_of"}, {"to", "td-a0b1c2"}}, {{"kind", "relates_to"}, {"to", title}}})},
			{"empty_links", FlowMaps(nil)},
			{"created_at", Str("2026-11-21T10:04:11Z")},
		})
		if err != nil {
			t.Fatalf("title %q: %v", title, err)
		}
		if !checkFast(t, fm.raw) {
			t.Errorf("the fast path declines the frontmatter td writes for title %q:\n%s", title, fm.raw)
		}
		if err := fm.Set("updated_at", Str("2026-11-22T08:00:00Z")); err != nil {
			t.Fatal(err)
		}
		if err := fm.Set("title", Str(title+" again")); err != nil {
			t.Fatal(err)
		}
		if !checkFast(t, fm.raw) {
			t.Errorf("the fast path declines the frontmatter after Set for title %q:\n%s", title, fm.raw)
		}
	}
}
