package markdown

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// issue is the set of canonical frontmatter fields.
type issue struct {
	ID          string   `yaml:"id"`
	Title       string   `yaml:"title"`
	Status      string   `yaml:"status"`
	Type        string   `yaml:"type"`
	Priority    string   `yaml:"priority"`
	Minor       bool     `yaml:"minor"`
	Labels      []string `yaml:"labels"`
	CreatedBy   string   `yaml:"created_by"`
	Implementer string   `yaml:"implementer"`
	Assignee    string   `yaml:"assignee"`
	Resolution  string   `yaml:"resolution"`
	Links       []struct {
		Kind string `yaml:"kind"`
		To   string `yaml:"to"`
	} `yaml:"links"`
	CreatedAt string `yaml:"created_at"`
	UpdatedAt string `yaml:"updated_at"`
}

const canonical = `---
id: td-k3x9qa
title: Sign in with GitHub
status: open
type: feature
priority: P2
minor: false
labels: [auth, ui]
created_by: ses_7hq2m4p1
implementer: ""
assignee: ""
resolution: ""
links:
  - {kind: child_of, to: td-a0b1c2}
created_at: 2026-11-21T10:04:11Z
updated_at: 2026-11-21T11:30:52Z
---
`

// handEdited is a frontmatter as a person might leave it: comments, odd
// quoting, unknown keys with nested structures and block scalars.
const handEdited = "---\n" +
	"# issue header comment\n" +
	"id: 'td-k3x9qa'\n" +
	"title:   \"Sign in with GitHub\"   # the title\n" +
	"status: in_progress            # open | in_progress | blocked | in_review | closed\n" +
	"\n" +
	"extra:\n" +
	"  nested:\n" +
	"    deep: [1, 2,   3]\n" +
	"  list:\n" +
	"  - one\n" +
	"  -   two   # odd spacing\n" +
	"# comment about labels\n" +
	"labels: [auth]\n" +
	"notes: |\n" +
	"  first line\n" +
	"\n" +
	"  after a blank line\n" +
	"folded: >-\n" +
	"   folded text\n" +
	"   continues\n" +
	"\n" +
	"links:\n" +
	"  - {kind: child_of, to: td-a0b1c2}\n" +
	"  - kind: blocks\n" +
	"    to: td-zzzzzz\n" +
	"updated_at: 2026-11-21T11:30:52Z\n" +
	"# trailing comment\n" +
	"---\n" +
	"\n" +
	"Free description.\n"

func TestParseRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys []string
	}{
		{"canonical", canonical + "\nBody.\n", []string{"id", "title", "status", "type", "priority", "minor", "labels", "created_by", "implementer", "assignee", "resolution", "links", "created_at", "updated_at"}},
		{"hand edited", handEdited, []string{"id", "title", "status", "extra", "labels", "notes", "folded", "links", "updated_at"}},
		{"crlf", "---\r\nid: td-a\r\ntitle: x # c\r\n---\r\nbody\r\n", []string{"id", "title"}},
		{"bom", bom + "---\nid: td-a\n---\nbody\n", []string{"id"}},
		{"bom crlf", bom + "---\r\nid: td-a\r\n---\r\n", []string{"id"}},
		{"no trailing newline", "---\nid: td-a\n---", []string{"id"}},
		{"body without trailing newline", "---\nid: td-a\n---\nlast line", []string{"id"}},
		{"empty frontmatter", "---\n---\nbody\n", nil},
		{"comment-only frontmatter", "---\n# nothing yet\n\n---\n", nil},
		{"delimiters with trailing spaces", "---  \nid: x\n--- \t\nbody", []string{"id"}},
		{"indented mapping", "---\n  id: td-a\n  title: t\n---\n", []string{"id", "title"}},
		{"mixed endings", "---\r\nid: a\ntitle: b\r\n---\nbody\r\n", []string{"id", "title"}},
		{"unicode", "---\ntitle: Überprüfung — 日本語 🚀\nlabels: [é, ü]\n---\n## Todos ✓\n", []string{"title", "labels"}},
		{"tabs in body and values", "---\ntitle: a\tb\n---\n\tcode\n", []string{"title"}},
		{"explicit document end", "---\nid: a\n...\n---\n", []string{"id"}},
		{"body with delimiter lines", "---\nid: a\n---\n---\nnot: frontmatter\n---\n", []string{"id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := string(f.Bytes()); got != tc.in {
				t.Fatalf("Bytes() = %q, want %q", got, tc.in)
			}
			if got := f.Front.Keys(); strings.Join(got, ",") != strings.Join(tc.keys, ",") {
				t.Fatalf("Keys() = %q, want %q", got, tc.keys)
			}
		})
	}
}

func TestParseParts(t *testing.T) {
	in := bom + "---\r\nid: td-a\r\n---\r\nbody\r\n"
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if f.EOL() != "\r\n" {
		t.Errorf("EOL() = %q", f.EOL())
	}
	if string(f.Body) != "body\r\n" {
		t.Errorf("Body = %q", f.Body)
	}
	if string(f.Front.Bytes()) != "id: td-a\r\n" {
		t.Errorf("Front.Bytes() = %q", f.Front.Bytes())
	}
	if f.Front.Line("id") != 2 || f.Front.Line("nope") != 0 {
		t.Errorf("Line(id) = %d, Line(nope) = %d", f.Front.Line("id"), f.Front.Line("nope"))
	}
	if !f.Front.Has("id") || f.Front.Has("title") {
		t.Errorf("Has is wrong")
	}
	if n := f.Front.Node("id"); n == nil || n.Value != "td-a" {
		t.Errorf("Node(id) = %v", n)
	}
	if f.Front.Node("title") != nil {
		t.Errorf("Node(title) is not nil")
	}
	lf, _ := Parse([]byte("---\nid: x\n---\n"))
	if lf.EOL() != "\n" {
		t.Errorf("EOL() = %q", lf.EOL())
	}
}

func TestParseDoesNotAliasInput(t *testing.T) {
	in := []byte("---\nid: a\n---\nbody\n")
	f, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	copy(in, "XXXXXXXXXXXXXXXXXX")
	if string(f.Bytes()) != "---\nid: a\n---\nbody\n" {
		t.Fatalf("File changed with its input: %q", f.Bytes())
	}
}

func TestLineNumbers(t *testing.T) {
	f, err := Parse([]byte(handEdited))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"id": 3, "title": 4, "status": 5, "extra": 7, "labels": 14, "notes": 15, "folded": 19, "links": 23, "updated_at": 27}
	for k, line := range want {
		if got := f.Front.Line(k); got != line {
			t.Errorf("Line(%q) = %d, want %d", k, got, line)
		}
	}
	// YAML also breaks lines at CR, NEL, LS and PS; file lines count only LF.
	f, err = Parse([]byte("---\na: \"x\u2028y\"\nb: 1\rc: 2\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	for k, line := range map[string]int{"a": 2, "b": 3, "c": 3} {
		if got := f.Front.Line(k); got != line {
			t.Errorf("Line(%q) = %d, want %d", k, got, line)
		}
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"empty file", "", 1, "does not start with a '---'"},
		{"no opening delimiter", "id: a\n---\n", 1, "does not start with a '---'"},
		{"text before delimiter", "\n---\nid: a\n---\n", 1, "does not start with a '---'"},
		{"only opening line", "---", 1, "no closing '---'"},
		{"no closing delimiter", "---\nid: a\ntitle: b\n", 1, "no closing '---'"},
		{"sequence", "---\n- a\n- b\n---\n", 2, "not a YAML mapping"},
		{"scalar", "---\n\njust text\n---\n", 3, "not a YAML mapping"},
		{"integer key", "---\nid: a\n12: b\n---\n", 3, "key is not a string"},
		{"boolean key", "---\ntrue: b\n---\n", 2, "key is not a string"},
		{"sequence key", "---\nid: a\n? [x]\n: b\n---\n", 3, "key is not a string"},
		{"syntax error", "---\nid: a\ntitle: b\n  c: d\n---\n", 4, "mapping values are not allowed"},
		{"syntax error on first line", "---\nid: a: b\n---\n", 2, "mapping values are not allowed"},
		{"unclosed flow sequence", "---\nid: a\nlabels: [a,\n  b\nx: 1\n---\n", 3, "invalid YAML"},
		{"unclosed quote", "---\nid: a\ntitle: \"abc\n---\n", 3, "invalid YAML"},
		{"tab indentation", "---\nid: a\nextra:\n\tb: 1\n---\n", 4, "invalid YAML"},
		{"syntax error crlf", "---\r\nid: a\r\ntitle: b\r\n  c: d\r\n---\r\n", 4, "mapping values are not allowed"},
		{"syntax error bom", bom + "---\nid: a\n  c: d\n---\n", 3, "mapping values are not allowed"},
		{"anchor", "---\nid: a\nbase: &b {x: 1}\n---\n", 3, "anchors and aliases"},
		{"alias", "---\nid: a\nbase: {x: 1}\nother: *b\n---\n", 4, "anchors and aliases"},
		{"anchor and alias", "---\nid: a\nbase: &b {x: 1}\nother: *b\n---\n", 3, "anchors and aliases"},
		{"nested anchor", "---\nid: a\nextra:\n  list:\n    - &x one\n    - *x\n---\n", 5, "anchors and aliases"},
		{"duplicate key", "---\nid: a\ntitle: b\nid: c\n---\n", 4, "duplicate key \"id\" (first defined at line 2)"},
		{"nested duplicate key", "---\nid: a\nextra:\n  x: 1\n  x: 2\n---\n", 5, "duplicate key \"x\""},
		{"two documents", "---\nid: a\n--- # second\nb: 2\n---\n", 3, "more than one YAML document"},
		{"control character", "---\nid: a\ntitle: b\x01c\n---\n", 3, "control characters"},
		{"invalid utf-8 in frontmatter", "---\nid: a\ntitle: b\xffc\n---\n", 3, "invalid UTF-8"},
		{"invalid utf-8 in body", "---\nid: a\n---\nline\nbad \xc3\x28\n", 5, "invalid UTF-8"},
		{"truncated utf-8 at end", "---\nid: a\n---\n\xe2\x82", 4, "invalid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error = %v (%T), want *Error", err, err)
			}
			if e.Line != tc.line || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("Parse error = %q, want line %d containing %q", e.Error(), tc.line, tc.msg)
			}
			if strings.Contains(e.Msg, "\n") {
				t.Fatalf("message spans lines: %q", e.Msg)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Line: 3, Msg: "duplicate key \"id\""}
	if e.Error() != `line 3: duplicate key "id"` {
		t.Fatalf("Error() = %q", e.Error())
	}
}

func TestDecode(t *testing.T) {
	f, err := Parse([]byte(canonical))
	if err != nil {
		t.Fatal(err)
	}
	var is issue
	if err := f.Front.Decode(&is); err != nil {
		t.Fatal(err)
	}
	if is.CreatedAt != "2026-11-21T10:04:11Z" || is.UpdatedAt != "2026-11-21T11:30:52Z" {
		t.Errorf("timestamps decoded as %q, %q", is.CreatedAt, is.UpdatedAt)
	}
	if is.ID != "td-k3x9qa" || is.Title != "Sign in with GitHub" || is.Minor || len(is.Labels) != 2 || is.Implementer != "" {
		t.Errorf("decoded %+v", is)
	}
	if len(is.Links) != 1 || is.Links[0].Kind != "child_of" || is.Links[0].To != "td-a0b1c2" {
		t.Errorf("links decoded as %+v", is.Links)
	}

	f, err = Parse([]byte("---\nid: a\nminor: maybe\nlabels: x\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Front.Decode(&is)
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || !strings.Contains(e.Msg, "maybe") || !strings.Contains(e.Msg, "and 1 more") {
		t.Fatalf("Decode error = %v, want line 3 about maybe", err)
	}

	empty, err := Parse([]byte("---\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Front.Decode(&is); err != nil {
		t.Fatalf("Decode of empty frontmatter: %v", err)
	}
}

func TestCanonicalRendering(t *testing.T) {
	fm := NewFrontmatter()
	sets := []struct {
		key string
		val *yaml.Node
	}{
		{"id", Str("td-k3x9qa")},
		{"title", Str("Sign in with GitHub")},
		{"status", Str("open")},
		{"type", Str("feature")},
		{"priority", Str("P2")},
		{"minor", Bool(false)},
		{"labels", FlowStrings([]string{"auth", "ui"})},
		{"created_by", Str("ses_7hq2m4p1")},
		{"implementer", Str("")},
		{"assignee", Str("")},
		{"resolution", Str("")},
		{"links", FlowMaps([][][2]string{{{"kind", "child_of"}, {"to", "td-a0b1c2"}}})},
		{"created_at", Str("2026-11-21T10:04:11Z")},
		{"updated_at", Str("2026-11-21T11:30:52Z")},
	}
	for _, s := range sets {
		if err := fm.Set(s.key, s.val); err != nil {
			t.Fatalf("Set(%q): %v", s.key, err)
		}
	}
	if got := string(NewFile(fm, nil).Bytes()); got != canonical {
		t.Fatalf("canonical rendering:\n%s\nwant:\n%s", got, canonical)
	}
	if err := fm.Set("links", FlowMaps(nil)); err != nil {
		t.Fatal(err)
	}
	if err := fm.Set("labels", FlowStrings(nil)); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(canonical, "links:\n  - {kind: child_of, to: td-a0b1c2}\n", "links: []\n", 1)
	want = strings.Replace(want, "labels: [auth, ui]", "labels: []", 1)
	if got := string(NewFile(fm, []byte("body\n")).Bytes()); got != want+"body\n" {
		t.Fatalf("empty lists:\n%s\nwant:\n%s", got, want)
	}
	// A new file parses back to the same keys and bytes.
	f, err := Parse([]byte(canonical))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.Bytes(), []byte(canonical)) {
		t.Fatal("canonical file does not round trip")
	}
}

func TestFlowMapsSeveral(t *testing.T) {
	fm := NewFrontmatter()
	links := FlowMaps([][][2]string{
		{{"kind", "child_of"}, {"to", "td-a0b1c2"}},
		{{"kind", "blocks"}, {"to", "td-zzzzzz"}, {"note", "a, b: c"}},
	})
	if err := fm.Set("links", links); err != nil {
		t.Fatal(err)
	}
	want := "links:\n  - {kind: child_of, to: td-a0b1c2}\n  - {kind: blocks, to: td-zzzzzz, note: \"a, b: c\"}\n"
	if got := string(fm.Bytes()); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestStr(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"open", "open"},
		{"Sign in with GitHub", "Sign in with GitHub"},
		{"session:ses_c81kd0zz", "session:ses_c81kd0zz"},
		{"td-k3x9qa", "td-k3x9qa"},
		{"2026-11-21T10:04:11Z", "2026-11-21T10:04:11Z"},
		{"2026-11-21", "2026-11-21"},
		{"Überprüfung 日本語", "Überprüfung 日本語"},
		{"Fix [bug] in parser", "Fix [bug] in parser"},
		{"C# support", "C# support"},
		{"", `""`},
		{"yes", `"yes"`},
		{"No", `"No"`},
		{"on", `"on"`},
		{"y", `"y"`},
		{"null", `"null"`},
		{"NULL", `"NULL"`},
		{"~", `"~"`},
		{"true", `"true"`},
		{"False", `"False"`},
		{"123", `"123"`},
		{"1.5", `"1.5"`},
		{"-1", `"-1"`},
		{"+1", `"+1"`},
		{"1_000", `"1_000"`},
		{"0x1F", `"0x1F"`},
		{"1e3", `"1e3"`},
		{"1:30", `"1:30"`},
		{".inf", `".inf"`},
		{".5", `".5"`},
		{" leading", `" leading"`},
		{"trailing ", `"trailing "`},
		{"a: b", `"a: b"`},
		{"ends with colon:", `"ends with colon:"`},
		{"a #comment", `"a #comment"`},
		{"#hash", `"#hash"`},
		{"- dash", `"- dash"`},
		{"[x]", `"[x]"`},
		{"{x}", `"{x}"`},
		{"*star", `"*star"`},
		{"&amp", `"&amp"`},
		{"!tag", `"!tag"`},
		{"|pipe", `"|pipe"`},
		{">gt", `">gt"`},
		{"'single", `"'single"`},
		{`"double`, `"\"double"`},
		{"%percent", `"%percent"`},
		{"@at", `"@at"`},
		{"`tick", "\"`tick\""},
		{"line\nbreak", `"line\nbreak"`},
		{"cr\r\nlf", `"cr\r\nlf"`},
		{"tab\there", `"tab\there"`},
		{`back\slash "q"`, `back\slash "q"`},
		{"quote\"and\\", `quote"and\`},
		{"\"q\\", `"\"q\\"`},
		{"nul\x00", `"nul\0"`},
		{"bell\x07", `"bell\x07"`},
		{"nbsp\u00a0x", `"nbsp\xA0x"`},
		{"ls\u2028x", `"ls\u2028x"`},
		{"bom\ufeff", `"bom\uFEFF"`},
	}
	for _, tc := range tests {
		fm := NewFrontmatter()
		if err := fm.Set("v", Str(tc.in)); err != nil {
			t.Errorf("Set(Str(%q)): %v", tc.in, err)
			continue
		}
		if got := string(fm.Bytes()); got != "v: "+tc.want+"\n" {
			t.Errorf("Str(%q) rendered %q, want %q", tc.in, got, "v: "+tc.want+"\n")
		}
		var out struct {
			V string `yaml:"v"`
		}
		if err := fm.Decode(&out); err != nil || out.V != tc.in {
			t.Errorf("Str(%q) decodes as %q, %v", tc.in, out.V, err)
		}
	}
}

func TestFlowStringsQuoting(t *testing.T) {
	fm := NewFrontmatter()
	in := []string{"auth", "a,b", "x]", "area:ui", "yes", "", "#1", "日本"}
	if err := fm.Set("labels", FlowStrings(in)); err != nil {
		t.Fatal(err)
	}
	want := `labels: [auth, "a,b", "x]", "area:ui", "yes", "", "#1", 日本]` + "\n"
	if got := string(fm.Bytes()); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	var out struct {
		Labels []string `yaml:"labels"`
	}
	if err := fm.Decode(&out); err != nil || strings.Join(out.Labels, "|") != strings.Join(in, "|") {
		t.Fatalf("decoded %q, %v", out.Labels, err)
	}
}
