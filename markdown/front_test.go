package markdown

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// assertOnlyKeyChanged checks that after differs from before only inside
// the line range of key (or by an addition at the end, for a new key).
func assertOnlyKeyChanged(t *testing.T, before *Frontmatter, key string, after []byte) {
	t.Helper()
	start := before.appendAt()
	end := start
	if i := before.find(key); i >= 0 {
		start, end = before.entries[i].start, before.entries[i].end
	}
	if len(after) < start || string(after[:start]) != string(before.raw[:start]) {
		t.Fatalf("bytes before key %q changed:\n%q\n%q", key, before.raw, after)
	}
	tail := before.raw[end:]
	if len(after) < len(tail) || string(after[len(after)-len(tail):]) != string(tail) {
		t.Fatalf("bytes after key %q changed:\n%q\n%q", key, before.raw, after)
	}
}

func TestSetChangesOnlyThatKey(t *testing.T) {
	linkNode := FlowMaps([][][2]string{{{"kind", "blocks"}, {"to", "td-b"}}})
	tests := []struct {
		name string
		key  string
		val  *yaml.Node
		old  string // the lines replaced in handEdited
		new  string // what replaces them
	}{
		{"status keeps its aligned comment", "status", Str("closed"),
			"status: in_progress            # open | in_progress | blocked | in_review | closed\n",
			"status: closed                 # open | in_progress | blocked | in_review | closed\n"},
		{"odd quoting is rewritten canonically", "title", Str("New title"),
			"title:   \"Sign in with GitHub\"   # the title\n",
			"title: New title                 # the title\n"},
		{"long value pushes the comment", "title", Str(strings.Repeat("x", 40)),
			"title:   \"Sign in with GitHub\"   # the title\n",
			"title: " + strings.Repeat("x", 40) + " # the title\n"},
		{"single quoted id", "id", Str("td-zzzzzz"), "id: 'td-k3x9qa'\n", "id: td-zzzzzz\n"},
		{"flow list after a comment line", "labels", FlowStrings([]string{"auth", "ui"}), "labels: [auth]\n", "labels: [auth, ui]\n"},
		{"block scalar with a blank line", "notes", Str("short"), "notes: |\n  first line\n\n  after a blank line\n", "notes: short\n"},
		{"folded scalar", "folded", Bool(true), "folded: >-\n   folded text\n   continues\n", "folded: true\n"},
		{"nested unknown key", "extra", Str("flat"), "extra:\n  nested:\n    deep: [1, 2,   3]\n  list:\n  - one\n  -   two   # odd spacing\n", "extra: flat\n"},
		{"mixed block sequence", "links", linkNode, "links:\n  - {kind: child_of, to: td-a0b1c2}\n  - kind: blocks\n    to: td-zzzzzz\n", "links:\n  - {kind: blocks, to: td-b}\n"},
		{"empty links", "links", FlowMaps(nil), "links:\n  - {kind: child_of, to: td-a0b1c2}\n  - kind: blocks\n    to: td-zzzzzz\n", "links: []\n"},
		{"last key before a trailing comment", "updated_at", Str("2027-01-02T03:04:05Z"), "updated_at: 2026-11-21T11:30:52Z\n", "updated_at: 2027-01-02T03:04:05Z\n"},
		{"new key goes at the end", "assignee", Str("session:ses_c81kd0zz"), "# trailing comment\n", "# trailing comment\nassignee: session:ses_c81kd0zz\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(handEdited))
			if err != nil {
				t.Fatal(err)
			}
			before := *f.Front
			if err := f.Front.Set(tc.key, tc.val); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if !strings.Contains(handEdited, tc.old) {
				t.Fatalf("test case: %q is not in the document", tc.old)
			}
			want := strings.Replace(handEdited, tc.old, tc.new, 1)
			if got := string(f.Bytes()); got != want {
				t.Fatalf("Set(%q) gave\n%s\nwant\n%s", tc.key, got, want)
			}
			assertOnlyKeyChanged(t, &before, tc.key, f.Front.raw)
			// The edited file parses again and the key reads back.
			g, err := Parse(f.Bytes())
			if err != nil {
				t.Fatalf("re-Parse: %v", err)
			}
			if !sameNode(tc.val, g.Front.Node(tc.key), true) {
				t.Fatalf("key %q reads back as %+v", tc.key, g.Front.Node(tc.key))
			}
		})
	}
}

func TestSetSequence(t *testing.T) {
	f, err := Parse([]byte(handEdited))
	if err != nil {
		t.Fatal(err)
	}
	keys := f.Front.Keys()
	for i := 0; i < 3; i++ {
		for _, k := range keys {
			before := *f.Front
			if err := f.Front.Set(k, Str(k+"-value")); err != nil {
				t.Fatalf("Set(%q): %v", k, err)
			}
			assertOnlyKeyChanged(t, &before, k, f.Front.raw)
		}
	}
	if got := strings.Join(f.Front.Keys(), ","); got != strings.Join(keys, ",") {
		t.Fatalf("keys changed: %s", got)
	}
	if !strings.HasPrefix(string(f.Bytes()), "---\n# issue header comment\nid: id-value\n") ||
		!strings.HasSuffix(string(f.Bytes()), "# trailing comment\n---\n\nFree description.\n") {
		t.Fatalf("surroundings changed:\n%s", f.Bytes())
	}
}

func TestSetCRLFAndIndent(t *testing.T) {
	tests := []struct {
		name, in, key string
		val           *yaml.Node
		want          string
	}{
		{"crlf replace", "---\r\nid: a\r\nstatus: open # c\r\nlinks: []\r\n---\r\nbody\r\n", "status", Str("closed"),
			"---\r\nid: a\r\nstatus: closed # c\r\nlinks: []\r\n---\r\nbody\r\n"},
		{"crlf multi-line value", "---\r\nid: a\r\nlinks: []\r\n---\r\n", "links", FlowMaps([][][2]string{{{"kind", "k"}, {"to", "t"}}}),
			"---\r\nid: a\r\nlinks:\r\n  - {kind: k, to: t}\r\n---\r\n"},
		{"crlf append", "---\r\nid: a\r\n---\r\n", "title", Str("T"),
			"---\r\nid: a\r\ntitle: T\r\n---\r\n"},
		{"bom kept", bom + "---\nid: a\n---\n", "id", Str("b"), bom + "---\nid: b\n---\n"},
		{"indented mapping", "---\n  id: a\n  title: t\n---\n", "title", FlowMaps([][][2]string{{{"a", "b"}}}),
			"---\n  id: a\n  title:\n    - {a: b}\n---\n"},
		{"indented append", "---\n  id: a\n---\n", "title", Str("t"), "---\n  id: a\n  title: t\n---\n"},
		{"empty frontmatter", "---\n---\nbody", "id", Str("td-a"), "---\nid: td-a\n---\nbody"},
		{"comment-only frontmatter", "---\n# c\n---\n", "id", Str("td-a"), "---\n# c\nid: td-a\n---\n"},
		{"keep-chomped scalar at end", "---\nnote: |+\n  text\n\n---\n", "id", Str("x"), "---\nnote: |+\n  text\n\nid: x\n---\n"},
		{"key comment on block sequence", "---\nlinks: # why\n  - {a: b}\nx: 1\n---\n", "links", FlowMaps(nil), "---\nlinks: [] # why\nx: 1\n---\n"},
		{"literal scalar falls back to the encoder", "---\nid: a\n---\n", "notes", &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.LiteralStyle, Value: "l1\nl2\n"},
			"---\nid: a\nnotes: |\n  l1\n  l2\n---\n"},
		{"block mapping falls back to the encoder", "---\nid: a\n---\n", "extra", &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{Str("k"), FlowStrings([]string{"v"})}},
			"---\nid: a\nextra:\n  k: [v]\n---\n"},
		{"append before document end", "---\nid: a\n...\n# c\n---\n", "title", Str("t"), "---\nid: a\ntitle: t\n...\n# c\n---\n"},
		{"bool and int", "---\nminor: no\n---\n", "minor", Bool(true), "---\nminor: true\n---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			before := *f.Front
			if err := f.Front.Set(tc.key, tc.val); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if got := string(f.Bytes()); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			assertOnlyKeyChanged(t, &before, tc.key, f.Front.raw)
		})
	}
}

func TestSetRefusals(t *testing.T) {
	alias := &yaml.Node{Kind: yaml.AliasNode, Value: "x"}
	anchored := Str("v")
	anchored.Anchor = "a"
	tests := []struct {
		name, in, key string
		val           *yaml.Node
		msg           string
	}{
		{"flow mapping", "---\n{id: a, title: b}\n---\n", "id", Str("x"), "flow mapping"},
		{"keys sharing a line", "---\n? id\n: a\n---\n", "id", Str("x"), "cannot be edited by line"},
		{"bare carriage return between keys", "---\nid: a\rstatus: open\n---\n", "status", Str("x"), "line break other than LF"},
		{"alias value", "---\nid: a\n---\n", "id", alias, "anchors and aliases"},
		{"anchored value", "---\nid: a\n---\n", "id", anchored, "anchors and aliases"},
		{"nil value", "---\nid: a\n---\n", "id", nil, "nil"},
		{"invalid utf-8 value", "---\nid: a\n---\n", "id", Str("\xff"), "id"},
		{"document node without content", "---\nid: a\n---\n", "id", &yaml.Node{Kind: yaml.DocumentNode}, "not a scalar"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			err = f.Front.Set(tc.key, tc.val)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Set error = %v, want one containing %q", err, tc.msg)
			}
			if string(f.Bytes()) != tc.in {
				t.Fatalf("a refused Set changed the file: %q", f.Bytes())
			}
		})
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		key, old, new string
	}{
		{"status", "status: in_progress            # open | in_progress | blocked | in_review | closed\n", ""},
		{"extra", "extra:\n  nested:\n    deep: [1, 2,   3]\n  list:\n  - one\n  -   two   # odd spacing\n", ""},
		{"updated_at", "updated_at: 2026-11-21T11:30:52Z\n", ""},
		{"id", "id: 'td-k3x9qa'\n", ""},
		{"notes", "notes: |\n  first line\n\n  after a blank line\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			f, err := Parse([]byte(handEdited))
			if err != nil {
				t.Fatal(err)
			}
			before := *f.Front
			f.Front.Delete(tc.key)
			want := strings.Replace(handEdited, tc.old, tc.new, 1)
			if got := string(f.Bytes()); got != want {
				t.Fatalf("Delete(%q) gave\n%s\nwant\n%s", tc.key, got, want)
			}
			if f.Front.Has(tc.key) {
				t.Fatalf("key %q still present", tc.key)
			}
			assertOnlyKeyChanged(t, &before, tc.key, f.Front.raw)
		})
	}
	f, _ := Parse([]byte("---\nid: a\n---\n"))
	f.Front.Delete("absent")
	if err := f.Front.Remove("absent"); err == nil {
		t.Fatal("Remove of an absent key succeeded")
	}
	if string(f.Bytes()) != "---\nid: a\n---\n" {
		t.Fatalf("Delete of an absent key changed the file: %q", f.Bytes())
	}
	f.Front.Delete("id")
	if string(f.Bytes()) != "---\n---\n" || len(f.Front.Keys()) != 0 {
		t.Fatalf("Delete of the only key gave %q", f.Bytes())
	}
}

func TestSetErrorIsLineError(t *testing.T) {
	f, err := Parse([]byte("---\n{id: a}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if err := f.Front.Set("id", Str("b")); !errors.As(err, &e) || e.Line != 2 {
		t.Fatalf("Set error = %v, want *Error at line 2", err)
	}
}

func TestBuildFrontmatterMatchesSet(t *testing.T) {
	kvs := []KeyValue{
		{"id", Str("td-k3x9qa")}, {"title", Str("Sign in: with GitHub # now")}, {"minor", Bool(false)},
		{"labels", FlowStrings([]string{"auth", "a b", "x,y"})}, {"empty", Str("")},
		{"links", FlowMaps([][][2]string{{{"kind", "child_of"}, {"to", "td-a0b1c2"}}})},
		{"when", Str("2026-11-21T10:04:11Z")}, {"multi", Str("two\nlines")},
	}
	byOne := NewFrontmatter()
	for _, kv := range kvs {
		if err := byOne.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	built, err := BuildFrontmatter(kvs)
	if err != nil {
		t.Fatal(err)
	}
	if string(built.Bytes()) != string(byOne.Bytes()) {
		t.Fatalf("built:\n%s\nby Set:\n%s", built.Bytes(), byOne.Bytes())
	}
	if _, err := BuildFrontmatter([]KeyValue{{"a", Str("x")}, {"a", Str("y")}}); err == nil {
		t.Fatal("a key given twice was accepted")
	}
}

// TestFrontmatterKeyLimit: a frontmatter of more keys than an issue
// needs, at the size an issue file may have (96,000 keys in some 740 KB),
// is refused at once, without the quadratic steps that compare keys; one
// at the limit parses.
func TestFrontmatterKeyLimit(t *testing.T) {
	build := func(n int) []byte {
		var b strings.Builder
		b.WriteString("---\ntitle: Big\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		b.WriteString("---\n\nbody\n")
		return []byte(b.String())
	}
	if _, err := Parse(build(MaxFrontmatterKeys)); err != nil {
		t.Fatalf("%d keys: %v", MaxFrontmatterKeys, err)
	}
	for _, n := range []int{MaxFrontmatterKeys + 1, 96000} {
		data := build(n)
		start := time.Now()
		_, err := Parse(data)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the frontmatter has %d keys, over the limit of %d", n, MaxFrontmatterKeys)) {
			t.Errorf("%d keys: %v", n, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%d keys (%d bytes) took %v to refuse", n, len(data), d)
		}
	}
}
