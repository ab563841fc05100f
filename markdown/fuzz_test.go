package markdown

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParse checks that Parse never panics, that a parsed file reassembles
// to its input, and that Set and Delete change only the lines of their key.
func FuzzParse(f *testing.F) {
	f.Add([]byte(canonical + "\nBody.\n"))
	f.Add([]byte(handEdited))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error %v is a %T, not *Error", err, err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; e.Line < 1 || e.Line > lines {
				t.Fatalf("error line %d outside the file's %d lines: %v", e.Line, lines, err)
			}
			return
		}
		if !bytes.Equal(file.Bytes(), data) {
			t.Fatalf("Bytes() = %q, want the input %q", file.Bytes(), data)
		}
		checkParseOwned(t, data, file)
		var is issue
		if err := file.Front.Decode(&is); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode error %v is a %T, not *Error", err, err)
			}
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, k := range file.Front.Keys() {
			if l := file.Front.Line(k); l < 2 || l > lines {
				t.Fatalf("Line(%q) = %d outside the file", k, l)
			}
		}

		edits := []struct {
			key string
			val *yaml.Node
		}{
			{"status", Str("closed")},
			{"labels", FlowStrings([]string{"a", "b c", "yes"})},
			{"links", FlowMaps([][][2]string{{{"kind", "child_of"}, {"to", "td-a0b1c2"}}})},
			{"zz_new", Str("2026-11-21T10:04:11Z")},
		}
		if keys := file.Front.Keys(); len(keys) > 0 {
			edits = append(edits, struct {
				key string
				val *yaml.Node
			}{keys[0], Str("first")})
		}
		for _, ed := range edits {
			checkEdit(t, data, ed.key, func(fm *Frontmatter) error { return fm.Set(ed.key, ed.val) }, ed.val)
		}
		keys := file.Front.Keys()
		if len(keys) > 4 {
			keys = append(keys[:3:3], keys[len(keys)-1])
		}
		for _, k := range keys {
			checkEdit(t, data, k, func(fm *Frontmatter) error { return fm.Remove(k) }, nil)
		}
	})
}

// checkEdit applies edit to a fresh parse of data and checks the result:
// it parses, key reads back as want (or is gone when want is nil), and
// every other key keeps its exact bytes.
func checkEdit(t *testing.T, data []byte, key string, edit func(*Frontmatter) error, want *yaml.Node) {
	t.Helper()
	file, err := Parse(data)
	if err != nil {
		t.Fatalf("second Parse failed: %v", err)
	}
	before := file.Front
	saved := *before
	spans := map[string]string{}
	if before.layout == "" {
		for _, e := range before.entries {
			spans[e.name] = string(before.raw[e.start:e.end])
		}
	}
	if err := edit(file.Front); err != nil {
		if !bytes.Equal(file.Bytes(), data) {
			t.Fatalf("failed edit of %q (%v) changed the file", key, err)
		}
		if saved.layout == "" {
			t.Logf("edit of %q refused: %v", key, err)
		}
		return
	}
	out := file.Bytes()
	g, err := Parse(out)
	if err != nil {
		t.Fatalf("edit of %q gave a file that does not parse: %v\n%q", key, err, out)
	}
	assertOnlyKeyChanged(t, &saved, key, g.Front.raw)
	for _, e := range g.Front.entries {
		if e.name == key {
			continue
		}
		if old, ok := spans[e.name]; !ok {
			t.Fatalf("edit of %q added key %q", key, e.name)
		} else if old != string(g.Front.raw[e.start:e.end]) {
			t.Fatalf("edit of %q changed key %q from %q to %q", key, e.name, old, g.Front.raw[e.start:e.end])
		}
	}
	if want == nil {
		if g.Front.Has(key) {
			t.Fatalf("key %q still present after removal", key)
		}
	} else if n := g.Front.Node(key); n == nil || !sameNode(want, n, true) {
		t.Fatalf("key %q reads back as %+v", key, n)
	}
}

// FuzzHeadings checks that Headings never panics and returns ordered whole
// lines inside the body, and that DescriptionEnd stays in range.
func FuzzHeadings(f *testing.F) {
	f.Add([]byte("text\n\n## Todos\n- [ ] a\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		hs := Headings(body)
		prev := 0
		for i, h := range hs {
			if h.Start < prev || h.Start >= h.End || h.End > len(body) {
				t.Fatalf("heading %d has range [%d,%d) after %d in a body of %d bytes", i, h.Start, h.End, prev, len(body))
			}
			if h.Start > 0 && body[h.Start-1] != '\n' {
				t.Fatalf("heading %d does not start a line", i)
			}
			if h.End < len(body) && body[h.End-1] != '\n' {
				t.Fatalf("heading %d does not end a line", i)
			}
			if h.Level < 1 || h.Level > 6 {
				t.Fatalf("heading %d has level %d", i, h.Level)
			}
			prev = h.End
		}
		end := DescriptionEnd(body)
		if end < 0 || end > len(body) {
			t.Fatalf("DescriptionEnd = %d outside [0,%d]", end, len(body))
		}
		if end < len(body) {
			found := false
			for _, h := range hs {
				found = found || h.Start == end
			}
			if !found {
				t.Fatalf("DescriptionEnd = %d is not the start of a heading", end)
			}
		}
	})
}

// checkParseOwned checks that ParseOwned reads data as Parse did, and that
// the file it gives neither copies data nor writes into it or past its
// end, even as the file is changed.
func checkParseOwned(t *testing.T, data []byte, want *File) {
	t.Helper()
	const spare = "SPARE"
	buf := append(append(make([]byte, 0, len(data)+len(spare)), data...), spare...)
	owned := buf[:len(data)]
	file, err := ParseOwned(owned)
	if err != nil {
		t.Fatalf("ParseOwned fails where Parse did not: %v", err)
	}
	if !bytes.Equal(file.Bytes(), want.Bytes()) || !bytes.Equal(file.Body, want.Body) {
		t.Fatalf("ParseOwned gives %q, Parse %q", file.Bytes(), want.Bytes())
	}
	if len(file.Body) > 0 && &file.Body[len(file.Body)-1] != &owned[len(owned)-1] {
		t.Fatal("ParseOwned copied the data it was given")
	}
	file.Body = append(file.Body, '!') // lands in the spare room, if the body reached it
	// A frontmatter td cannot edit by line refuses; either way, nothing
	// may land in data.
	_ = file.Front.Set("title", &yaml.Node{Kind: yaml.ScalarNode, Value: "changed"})
	_ = file.Bytes()
	if !bytes.Equal(buf, append(slices.Clone(data), spare...)) {
		t.Fatalf("the file wrote into the data it was given: %q", buf)
	}
}
