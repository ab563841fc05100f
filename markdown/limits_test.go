package markdown

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// pathological is one hostile body: a run of the markup that makes a
// markdown parser's work grow faster than the input.
type pathological struct {
	name string
	body string
}

// pathologicalBodies returns bodies of about size bytes that once took
// goldmark, or td around it, time quadratic in their size.
func pathologicalBodies(size int) []pathological {
	fill := func(unit string) string { return strings.Repeat(unit, size/len(unit)) }
	grow := func(line func(i int) string) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(line(i))
		}
		return b.String()
	}
	return []pathological{
		{"dash run", fill("- ")},
		{"dash lines", fill("- \n")},
		{"nested lists", grow(func(i int) string { return strings.Repeat("  ", i%2000) + "- a\n" })},
		{"nested quotes", grow(func(i int) string { return strings.Repeat(">", i%5000) + " a\n" })},
		{"quote run", fill(">")},
		{"spaced quote run", fill("> ")},
		{"ordered run", fill("1. ")},
		{"mixed containers", fill("- > 1. ")},
		{"deep lazy paragraph", strings.Repeat("- ", 1000) + "a\n" + fill("b\n")},
		{"backticks", fill("`")},
		{"brackets", fill("[")},
		{"links", fill("[a](")},
		{"emphasis", fill("*_")},
		{"todos", "## Todos\n\n" + fill("- [ ] x\n")},
		{"short lines", fill("a\n")},
		{"paragraphs", fill("a\n\n")},
	}
}

// TestPathologicalBodies reads each hostile body of 1 MiB as the body of an
// issue file: the file is refused with one line, or it is read, its
// checklist, headings and anchors are parsed and a merge of it finishes.
// BenchmarkPathological measures the time each takes.
func TestPathologicalBodies(t *testing.T) {
	size := 1 << 20
	if testing.Short() {
		size = 64 << 10
	}
	for _, p := range pathologicalBodies(size) {
		t.Run(p.name, func(t *testing.T) {
			data := []byte(canonical + p.body)
			f, err := Parse(data)
			if err != nil {
				var me *Error
				if !errors.As(err, &me) || me.Line < 18 || strings.Contains(err.Error(), "\n") {
					t.Fatalf("Parse refused with %q, want one line naming a body line", err)
				}
				return
			}
			c := ParseChecklist(f.Body)
			Headings(f.Body)
			ParseAnchors(f.Body)
			if got := c.Bytes(); string(got) != p.body {
				t.Fatalf("the checklist changed the body")
			}
			ours := []byte(strings.Replace(string(data), "status: open", "status: closed", 1))
			theirs := append([]byte(string(data)), "\nmore\n"...)
			merged, conflicts := MergeIssue(data, ours, theirs, "ours", "theirs")
			if conflicts != nil || !strings.Contains(string(merged), "status: closed") || !strings.HasSuffix(string(merged), "\nmore\n") {
				t.Fatalf("merge: conflicts %v", conflicts)
			}
		})
	}
}

// TestBodyLimits pins where the limits lie and how a refusal reads.
func TestBodyLimits(t *testing.T) {
	headings := func(n int) string { return strings.Repeat("# a\n", n) }
	tests := []struct {
		name string
		body string
		want string // "" for accepted
	}{
		{"quotes at the limit", strings.Repeat(">", MaxNesting) + " a\n", ""},
		{"quotes past the limit", "text\n\n" + strings.Repeat(">", MaxNesting+1) + " a\n",
			fmt.Sprintf("line 20: lists and quotes nest more than %d levels deep", MaxNesting)},
		{"lists past the limit", "- a\n" + strings.Repeat("- ", MaxNesting+1) + "b\n",
			fmt.Sprintf("line 19: lists and quotes nest more than %d levels deep", MaxNesting)},
		{"indented lists past the limit", func() string {
			var b strings.Builder
			for i := range MaxNesting + 1 {
				b.WriteString(strings.Repeat("  ", i) + "- a\n")
			}
			return b.String()
		}(), fmt.Sprintf("line %d: lists and quotes nest more than %d levels deep", 18+MaxNesting, MaxNesting)},
		{"deep quotes in a code block", "```\n" + strings.Repeat(">", 1000) + "\n```\n", ""},
		{"blocks at the limit", headings(MaxBlocks), ""},
		{"blocks past the limit", headings(MaxBlocks + 1),
			fmt.Sprintf("line %d: the body has more than %d blocks (paragraphs, list items, quotes); split the issue", 18+MaxBlocks, MaxBlocks)},
		{"lines at the limit", strings.Repeat("a\n", MaxLines), ""},
		{"lines past the limit", strings.Repeat("a\n", MaxLines+1),
			fmt.Sprintf("line %d: the body has more than %d lines; split the issue", 18+MaxLines, MaxLines)},
		{"nesting before the line limit", "- a\n" + strings.Repeat("- ", MaxNesting+1) + "b\n" + strings.Repeat("a\n", MaxLines),
			fmt.Sprintf("line 19: lists and quotes nest more than %d levels deep", MaxNesting)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(canonical + tt.body))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("Parse: got %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkPathological measures reading each hostile body of 1 MiB as an
// issue file (refused or read) and, when read, parsing its checklist.
func BenchmarkPathological(b *testing.B) {
	for _, p := range pathologicalBodies(1 << 20) {
		data := []byte(canonical + p.body)
		b.Run(strings.ReplaceAll(p.name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if f, err := Parse(data); err == nil {
					ParseChecklist(f.Body)
				}
			}
		})
	}
}

// nestedByIndent is a list nested depth deep, one item a line, each
// indented two columns more than its parent, with a quote at the bottom.
func nestedByIndent(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	b.WriteString(strings.Repeat("  ", depth) + "> quote\n")
	return b.String()
}

// TestCannotReachLimitsAgreesWithTheParse checks the shortcut against the parse
// it skips: a body it passes is within the limits by goldmark's reading.
func TestCannotReachLimitsAgreesWithTheParse(t *testing.T) {
	bodies := []string{
		typicalIssue,
		strings.Repeat(">", MaxNesting) + " a\n",
		strings.Repeat("- ", MaxNesting) + "a\n",
		strings.Repeat("1. ", MaxNesting) + "a\n",
		strings.Repeat("1) ", MaxNesting) + "a\n",
		strings.Repeat("> - ", MaxNesting/2) + "a\n",
		strings.Repeat("+ ", MaxNesting+1) + "a\n",
		strings.Repeat("* ", MaxNesting+1) + "a\n",
		strings.Repeat("> ", MaxNesting+1) + "a\n",
		strings.Repeat("# a\n", MaxBlocks/8),
		nestedByIndent(MaxNesting + 1),
		nestedByIndent(MaxNesting - 1),
		nestedByIndent(MaxNesting/2 + 1),
		strings.Repeat("\t", MaxNesting/8) + "- a\n",
		typicalIssue + strings.Repeat(typicalIssue[strings.Index(typicalIssue, "- ["):], 40),
	}
	for _, p := range pathologicalBodies(16 << 10) {
		bodies = append(bodies, p.body)
	}
	for _, b := range bodies {
		_, l := parseBody([]byte(b))
		if cannotReachLimits([]byte(b)) && l.err(1) != nil {
			t.Errorf("cannotReachLimits passes a body the parse refuses (%v): %.60q", l.err(1), b)
		}
	}
}

// TestTypicalBodiesSkipTheLimitsParse: the shortcut passes the bodies td
// writes, so reading an issue parses its body once, not twice.
func TestTypicalBodiesSkipTheLimitsParse(t *testing.T) {
	long := typicalIssue + strings.Repeat(typicalIssue[strings.Index(typicalIssue, "- ["):], 40)
	for _, b := range []string{typicalIssue, long} {
		if !cannotReachLimits([]byte(b)) {
			t.Errorf("a typical body of %d bytes is parsed to check its limits", len(b))
		}
	}
}

// FuzzCannotReachLimits holds the shortcut to the parse it skips.
func FuzzCannotReachLimits(f *testing.F) {
	f.Add(typicalIssue)
	f.Add(nestedByIndent(MaxNesting + 1))
	f.Add(strings.Repeat("> ", MaxNesting+1) + "a\n")
	f.Add("\t\t\t\t\t\t\t- a\n")
	f.Add("1.  - > + * a\n")
	f.Fuzz(func(t *testing.T, body string) {
		if !cannotReachLimits([]byte(body)) {
			return
		}
		if _, l := parseBody([]byte(body)); l.err(1) != nil {
			t.Fatalf("cannotReachLimits passes a body the parse refuses (%v): %q", l.err(1), body)
		}
	})
}

// TestPooledParsersStartClean: a body's parser comes from a pool, and a
// parse that stopped at a limit must leave nothing behind for the next
// body it parses (a stop flag or a block count would cut that body short).
func TestPooledParsersStartClean(t *testing.T) {
	over := strings.Repeat("# a\n", MaxBlocks+1)
	ok := "## Todos\n\n- [ ] one\n- [x] two\n"
	for i := range 20 {
		if _, l := parseBody([]byte(over)); l.past != pastBlocks {
			t.Fatalf("round %d: an over-long body was not stopped: %+v", i, l.past)
		}
		// A heading, a list, two items and their two lines of text.
		if _, l := parseBody([]byte(ok)); l.past != withinLimits || l.blocks != 6 {
			t.Fatalf("round %d: a small body after a stopped one: past %d, %d blocks, want 0 and 6", i, l.past, l.blocks)
		}
		if items := ParseChecklist([]byte(ok)).Items(); len(items) != 2 {
			t.Fatalf("round %d: %d items, want 2", i, len(items))
		}
	}
}
