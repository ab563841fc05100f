package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tdproject/td/policy/domain"
)

// specBody is the body of the issue example in the spec.
const specBody = `
Free description, any markdown.

## Acceptance criteria

- [x] A user can sign in with a GitHub account
- [ ] Expired tokens refresh without a prompt

## Todos

### Backend
- [x] Register the OAuth app config
- [/] Implement the callback handler
  > state parameter must be verified
- [ ] Integration test against a fake provider
- [-] Try the device flow

### Frontend (from primary.subagents.ui)
- [!] Login button
  > blocked: waiting for the design tokens
`

// want describes an expected item; raw is body[Start:End].
type want struct {
	kind        domain.TodoKind
	status      domain.TodoStatus
	text, phase string
	origin      domain.AgentPath
	notes       []string
	line        int
	raw         string
}

// step and crit build expectations tersely.
func step(status domain.TodoStatus, text string, line int, raw string) want {
	return want{kind: domain.KindStep, status: status, text: text, line: line, raw: raw}
}

func crit(status domain.TodoStatus, text string, line int, raw string) want {
	return want{kind: domain.KindCriterion, status: status, text: text, line: line, raw: raw}
}

func (w want) in(phase string, origin domain.AgentPath) want {
	w.phase, w.origin = phase, origin
	return w
}

func (w want) with(notes ...string) want { w.notes = notes; return w }

func TestParseChecklist(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []want
	}{
		{"empty", "", nil},
		{"no sections", "- [ ] a task outside any section\n", nil},
		{"all markers", "## Todos\n- [ ] a\n- [/] b\n- [x] c\n- [X] d\n- [-] e\n- [!] f\n- [?] g\n- [] h\n- [xx] i\n", []want{
			step(domain.TodoPending, "a", 2, "- [ ] a\n"),
			step(domain.TodoInProgress, "b", 3, "- [/] b\n"),
			step(domain.TodoCompleted, "c", 4, "- [x] c\n"),
			step(domain.TodoCompleted, "d", 5, "- [X] d\n"),
			step(domain.TodoAbandoned, "e", 6, "- [-] e\n"),
			// "[?] g" and the others are text: they end e's siblings
			// only as plain list items, which f's range excludes.
			step(domain.TodoBlocked, "f", 7, "- [!] f\n"),
		}},
		{"spec example", specBody, []want{
			crit(domain.TodoCompleted, "A user can sign in with a GitHub account", 6, "- [x] A user can sign in with a GitHub account\n"),
			crit(domain.TodoPending, "Expired tokens refresh without a prompt", 7, "- [ ] Expired tokens refresh without a prompt\n"),
			step(domain.TodoCompleted, "Register the OAuth app config", 12, "- [x] Register the OAuth app config\n").in("Backend", ""),
			step(domain.TodoInProgress, "Implement the callback handler", 13, "- [/] Implement the callback handler\n  > state parameter must be verified\n").in("Backend", "").with("state parameter must be verified"),
			step(domain.TodoPending, "Integration test against a fake provider", 15, "- [ ] Integration test against a fake provider\n").in("Backend", ""),
			step(domain.TodoAbandoned, "Try the device flow", 16, "- [-] Try the device flow\n").in("Backend", ""),
			step(domain.TodoBlocked, "Login button", 19, "- [!] Login button\n  > blocked: waiting for the design tokens\n").in("Frontend", "primary.subagents.ui").with("blocked: waiting for the design tokens"),
		}},
		{"phases and origins", "## Todos\n- [ ] pre\n### Backend\n- [ ] b\n### UI (from primary.subagents.ui)\n- [ ] u\n### Odd (from Not.Valid)\n- [ ] o\n#### Deeper\n- [ ] d\n### (from p)\n- [ ] e\n", []want{
			step(domain.TodoPending, "pre", 2, "- [ ] pre\n"),
			step(domain.TodoPending, "b", 4, "- [ ] b\n").in("Backend", ""),
			step(domain.TodoPending, "u", 6, "- [ ] u\n").in("UI", "primary.subagents.ui"),
			step(domain.TodoPending, "o", 8, "- [ ] o\n").in("Odd (from Not.Valid)", ""),
			step(domain.TodoPending, "d", 10, "- [ ] d\n").in("Odd (from Not.Valid)", ""),
			step(domain.TodoPending, "e", 12, "- [ ] e\n").in("", "p"),
		}},
		{"criteria have no phases", "## Acceptance criteria\n### Group\n- [ ] c\n", []want{
			crit(domain.TodoPending, "c", 3, "- [ ] c\n"),
		}},
		{"notes", "## Todos\n- [ ] a\n  > one\n  > still one\n\n  >two\n  lazy\n\n  - nested\n\n  > three\n- [ ] b\n  >\n  >   indented\n", []want{
			step(domain.TodoPending, "a", 2, "- [ ] a\n  > one\n  > still one\n\n  >two\n  lazy\n\n  - nested\n\n  > three\n").with("one\nstill one", "two\nlazy", "three"),
			step(domain.TodoPending, "b", 12, "- [ ] b\n  >\n  >   indented\n").with("indented"),
		}},
		{"multi-line text", "## Todos\n- [ ]   first  line\n  second\tline\nlazy third\n- [ ]\n  text on the next line\n", []want{
			step(domain.TodoPending, "first  line second\tline lazy third", 2, "- [ ]   first  line\n  second\tline\nlazy third\n"),
			step(domain.TodoPending, "text on the next line", 5, "- [ ]\n  text on the next line\n"),
		}},
		{"nested lists are content", "## Todos\n- [ ] parent\n  - [ ] child\n  - plain\n    1. [x] deeper\n- [x] next\n", []want{
			step(domain.TodoPending, "parent", 2, "- [ ] parent\n  - [ ] child\n  - plain\n    1. [x] deeper\n"),
			step(domain.TodoCompleted, "next", 6, "- [x] next\n"),
		}},
		{"loose list", "## Todos\n\n- [ ] a\n\n- [ ] b\n   \n\n## Next\n", []want{
			step(domain.TodoPending, "a", 3, "- [ ] a\n"),
			step(domain.TodoPending, "b", 5, "- [ ] b\n"),
		}},
		{"other list markers", "## Todos\n* [ ] star\n+ [/] plus\n1. [x] dot\n2) [-] paren\n   - [ ] not top-level\n  - [!] indented\n", []want{
			step(domain.TodoPending, "star", 2, "* [ ] star\n"),
			step(domain.TodoInProgress, "plus", 3, "+ [/] plus\n"),
			step(domain.TodoCompleted, "dot", 4, "1. [x] dot\n"),
			step(domain.TodoAbandoned, "paren", 5, "2) [-] paren\n   - [ ] not top-level\n"),
			step(domain.TodoBlocked, "indented", 7, "  - [!] indented\n"),
		}},
		{"crlf", "## Todos\r\n### P\r\n- [ ] a\r\n  > note\r\n\r\n- [x] b\r\n", []want{
			step(domain.TodoPending, "a", 3, "- [ ] a\r\n  > note\r\n").in("P", "").with("note"),
			step(domain.TodoCompleted, "b", 6, "- [x] b\r\n").in("P", ""),
		}},
		{"tabs", "##\tTodos\t\n-\t[ ]\ttab text\t\n- [x]\tb\n", []want{
			step(domain.TodoPending, "tab text", 2, "-\t[ ]\ttab text\t\n"),
			step(domain.TodoCompleted, "b", 3, "- [x]\tb\n"),
		}},
		{"unicode", "## Todos\n- [ ] Tâche ✓ 日本語\n  > 注意\n", []want{
			step(domain.TodoPending, "Tâche ✓ 日本語", 2, "- [ ] Tâche ✓ 日本語\n  > 注意\n").with("注意"),
		}},
		{"no trailing newline", "## Todos\n- [ ] a\n- [x] last", []want{
			step(domain.TodoPending, "a", 2, "- [ ] a\n"),
			step(domain.TodoCompleted, "last", 3, "- [x] last"),
		}},
		{"heading without newline", "## Todos", nil},
		{"setext headings", "Todos\n-----\n- [ ] s\n\nAcceptance criteria\n===================\n- [ ] level one ends todos\n", []want{
			step(domain.TodoPending, "s", 3, "- [ ] s\n"),
		}},
		{"fenced code", "## Todos\n```\n- [ ] fake\n```\n~~~md\n- [ ] fake\n~~~\n- [ ] real\n", []want{
			step(domain.TodoPending, "real", 8, "- [ ] real\n"),
		}},
		{"unclosed fence", "## Todos\n- [ ] real\n```\n- [ ] fake\n## Acceptance criteria\n- [ ] fake\n", []want{
			step(domain.TodoPending, "real", 2, "- [ ] real\n"),
		}},
		{"html block", "## Todos\n<div>\n- [ ] fake\n</div>\n\n<!--\n- [ ] fake\n-->\n- [ ] real\n", []want{
			step(domain.TodoPending, "real", 9, "- [ ] real\n"),
		}},
		{"indented code", "## Todos\n\n    - [ ] fake\n\n- [ ] real\n", []want{
			step(domain.TodoPending, "real", 5, "- [ ] real\n"),
		}},
		{"other sections", "## Notes\n- [ ] fake\n## Todos\n- [ ] real\n## Later\n- [ ] fake\n# Top\n- [ ] fake\n", []want{
			step(domain.TodoPending, "real", 4, "- [ ] real\n"),
		}},
		{"todos heading in code", "```\n## Todos\n- [ ] fake\n```\n- [ ] fake\n", nil},
		{"todos heading in a list or quote", "- ## Todos\n  - [ ] fake\n> ## Todos\n> - [ ] fake\n", nil},
		{"only the first section counts", "## Todos\n- [ ] a\n## todos\n- [ ] b\n", []want{
			step(domain.TodoPending, "a", 2, "- [ ] a\n"),
		}},
		{"section titles ignore case and closing hashes", "##   ACCEPTANCE criteria ##\n- [ ] c\n## TODOS\n- [ ] s\n", []want{
			crit(domain.TodoPending, "c", 2, "- [ ] c\n"),
			step(domain.TodoPending, "s", 4, "- [ ] s\n"),
		}},
		{"deeper headings stay inside", "## Todos\n#### Detail\n- [ ] a\n### P\n- [ ] b\n", []want{
			step(domain.TodoPending, "a", 3, "- [ ] a\n"),
			step(domain.TodoPending, "b", 5, "- [ ] b\n").in("P", ""),
		}},
		{"items without a marker", "## Todos\n- plain\n- [ ] real\n-\n  [ ] starts on the next line\n- > [ ] quoted\n-     [ ] code\n", []want{
			step(domain.TodoPending, "real", 3, "- [ ] real\n"),
		}},
		{"marker needs a space after", "## Todos\n- [x]foo\n- [x]\n- [ ]\tTab\n- [ ]\r\n", []want{
			step(domain.TodoCompleted, "", 3, "- [x]\n"),
			step(domain.TodoPending, "Tab", 4, "- [ ]\tTab\n"),
			step(domain.TodoPending, "", 5, "- [ ]\r\n"),
		}},
		{"table", "## Todos\n| a |\n|---|\n| - [ ] x |\n", nil},
		{"blockquote list", "## Todos\n> - [ ] quoted\n", nil},
		{"link reference after the list", "## Todos\n- [ ] a\n\n[ref]: https://example.com\n", []want{
			step(domain.TodoPending, "a", 2, "- [ ] a\n"),
		}},
		{"lone cr", "## Todos\n- [ ] a\rb\n", []want{
			step(domain.TodoPending, "a\rb", 2, "- [ ] a\rb\n"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tc.body))
			got := c.Items()
			if len(got) != len(tc.want) {
				t.Fatalf("got %d items, want %d:\n%s", len(got), len(tc.want), dumpItems(tc.body, got))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Kind != w.kind || g.Status != w.status || g.Text != w.text || g.Phase != w.phase || g.Origin != w.origin ||
					!slices.Equal(g.Notes, w.notes) || g.Line != w.line || tc.body[g.Start:g.End] != w.raw {
					t.Errorf("item %d =\n%s\nwant {%s %s %q phase %q origin %q notes %q line %d raw %q}", i, dumpItems(tc.body, got[i:i+1]),
						w.kind, w.status, w.text, w.phase, w.origin, w.notes, w.line, w.raw)
				}
			}
			if string(c.Bytes()) != tc.body {
				t.Errorf("Bytes() changed the body")
			}
		})
	}
}

func dumpItems(body string, items []Item) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "  {%s %s %q phase %q origin %q notes %q line %d raw %q}\n", it.Kind, it.Status, it.Text, it.Phase, it.Origin, it.Notes, it.Line, body[it.Start:it.End])
	}
	return b.String()
}

func TestSectionsAndPhases(t *testing.T) {
	c := ParseChecklist([]byte(specBody))
	if !c.HasSection(domain.KindCriterion) || !c.HasSection(domain.KindStep) || c.HasSection("other") {
		t.Errorf("HasSection = %v %v %v", c.HasSection(domain.KindCriterion), c.HasSection(domain.KindStep), c.HasSection("other"))
	}
	want := []Phase{{Name: "Backend", Line: 11}, {Name: "Frontend", Origin: "primary.subagents.ui", Line: 18}}
	if got := c.Phases(); !slices.Equal(got, want) {
		t.Errorf("Phases() = %+v, want %+v", got, want)
	}
	c = ParseChecklist([]byte("Intro\n## Todos\n"))
	if c.HasSection(domain.KindCriterion) || !c.HasSection(domain.KindStep) {
		t.Errorf("HasSection on a bare Todos heading = %v %v", c.HasSection(domain.KindCriterion), c.HasSection(domain.KindStep))
	}
}

// editCase is one edit with the exact body before and after it.
type editCase struct {
	name         string
	before, want string
	edit         func(*Checklist) error
}

func runEdits(t *testing.T, tests []editCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tc.before))
			if err := tc.edit(c); err != nil {
				t.Fatalf("edit: %v", err)
			}
			if got := string(c.Bytes()); got != tc.want {
				t.Fatalf("body =\n%q\nwant\n%q", got, tc.want)
			}
			fresh := ParseChecklist(c.Bytes())
			if !slices.EqualFunc(fresh.Items(), c.Items(), func(a, b Item) bool {
				return sameItem(a, b) && a.Start == b.Start && a.End == b.End && a.Line == b.Line
			}) {
				t.Fatalf("Items() after the edit differ from a fresh parse:\n%s\nfresh:\n%s", dumpItems(tc.want, c.Items()), dumpItems(tc.want, fresh.Items()))
			}
		})
	}
}

func TestSetStatus(t *testing.T) {
	set := func(i int, s domain.TodoStatus) func(*Checklist) error {
		return func(c *Checklist) error { return c.SetStatus(i, s) }
	}
	runEdits(t, []editCase{
		{"complete", "## Todos\n- [ ] a\n- [ ] b\n", "## Todos\n- [ ] a\n- [x] b\n", set(1, domain.TodoCompleted)},
		{"start", "## Todos\n- [ ] a\n", "## Todos\n- [/] a\n", set(0, domain.TodoInProgress)},
		{"drop", "## Todos\n- [/] a\n", "## Todos\n- [-] a\n", set(0, domain.TodoAbandoned)},
		{"block", "## Todos\n- [ ] a\n", "## Todos\n- [!] a\n", set(0, domain.TodoBlocked)},
		{"reopen an X", "## Todos\n- [X] a\n", "## Todos\n- [ ] a\n", set(0, domain.TodoPending)},
		{"X stays X", "## Todos\n- [X] a\n", "## Todos\n- [X] a\n", set(0, domain.TodoCompleted)},
		{"criterion", "## Acceptance criteria\n- [ ] c\n", "## Acceptance criteria\n- [x] c\n", set(0, domain.TodoCompleted)},
		{"odd spacing kept", "## Todos\n1)  [ ]   spaced   \n   more\n", "## Todos\n1)  [x]   spaced   \n   more\n", set(0, domain.TodoCompleted)},
		{"crlf", "## Todos\r\n- [ ] a\r\n", "## Todos\r\n- [/] a\r\n", set(0, domain.TodoInProgress)},
		{"no trailing newline", "## Todos\n- [ ] a", "## Todos\n- [!] a", set(0, domain.TodoBlocked)},
	})
}

func TestAddNote(t *testing.T) {
	note := func(i int, s string) func(*Checklist) error {
		return func(c *Checklist) error { return c.AddNote(i, s) }
	}
	runEdits(t, []editCase{
		{"first note", "## Todos\n- [ ] a\n- [ ] b\n", "## Todos\n- [ ] a\n  > why\n- [ ] b\n", note(0, "why")},
		{"second note gets its own quote", "## Todos\n- [ ] a\n  > one\n- [ ] b\n", "## Todos\n- [ ] a\n  > one\n\n  > two\n- [ ] b\n", note(0, "two")},
		{"multi-line", "## Todos\n- [ ] a\n", "## Todos\n- [ ] a\n  > line one\n  > line two\n  >\n  > line four\n", note(0, "  line one  \r\nline two\n\nline four\n")},
		{"ordered item column", "## Todos\n10. [ ] a\n", "## Todos\n10. [ ] a\n    > n\n", note(0, "n")},
		{"after nested content", "## Todos\n- [ ] a\n  - sub\n\n- [ ] b\n", "## Todos\n- [ ] a\n  - sub\n  > n\n\n- [ ] b\n", note(0, "n")},
		{"last item before a section", "## Todos\n- [ ] a\n\n## Notes\n", "## Todos\n- [ ] a\n  > n\n\n## Notes\n", note(0, "n")},
		{"crlf", "## Todos\r\n- [ ] a\r\n- [ ] b\r\n", "## Todos\r\n- [ ] a\r\n  > n\r\n- [ ] b\r\n", note(0, "n")},
		{"no trailing newline", "## Todos\n- [ ] a", "## Todos\n- [ ] a\n  > n\n", note(0, "n")},
		{"paragraph after a closed fence", "## Todos\n- [ ] a\n  ```\n  x\n  ```\ntext\n", "## Todos\n- [ ] a\n  ```\n  x\n  ```\n  > n\n\ntext\n", note(0, "n")},
		{"unicode", "## Todos\n- [ ] a\n", "## Todos\n- [ ] a\n  > ✓ 日本語\n", note(0, "✓ 日本語")},
	})
}

func TestRemoveNotes(t *testing.T) {
	remove := func(i int, prefix string) func(*Checklist) error {
		return func(c *Checklist) error {
			_, err := c.RemoveNotes(i, func(n string) bool { return strings.HasPrefix(n, prefix) })
			return err
		}
	}
	runEdits(t, []editCase{
		{"the only note", "## Todos\n- [ ] a\n  > x: why\n- [ ] b\n", "## Todos\n- [ ] a\n- [ ] b\n", remove(0, "x:")},
		{"a later note, with its blank line", "## Todos\n- [ ] a\n  > one\n\n  > x: two\n- [ ] b\n", "## Todos\n- [ ] a\n  > one\n- [ ] b\n", remove(0, "x:")},
		{"the first note, with the blank line after it", "## Todos\n- [ ] a\n  > x: one\n\n  > two\n- [ ] b\n", "## Todos\n- [ ] a\n  > two\n- [ ] b\n", remove(0, "x:")},
		{"a middle note", "## Todos\n- [ ] a\n  > one\n\n  > x: two\n\n  > three\n", "## Todos\n- [ ] a\n  > one\n\n  > three\n", remove(0, "x:")},
		{"every matching note", "## Todos\n- [ ] a\n  > x: one\n\n  > keep\n\n  > x: two\n", "## Todos\n- [ ] a\n  > keep\n", remove(0, "x:")},
		{"a multi-line note", "## Todos\n- [ ] a\n  > x: one\n  > more\n- [ ] b\n", "## Todos\n- [ ] a\n- [ ] b\n", remove(0, "x:")},
		{"only the addressed item", "## Todos\n- [ ] a\n  > x: a\n- [ ] b\n  > x: b\n", "## Todos\n- [ ] a\n  > x: a\n- [ ] b\n", remove(1, "x:")},
		{"before nested content", "## Todos\n- [ ] a\n  > x: n\n\n  - sub\n\ntext\n", "## Todos\n- [ ] a\n  - sub\n\ntext\n", remove(0, "x:")},
		{"crlf", "## Todos\r\n- [ ] a\r\n  > x: n\r\n- [ ] b\r\n", "## Todos\r\n- [ ] a\r\n- [ ] b\r\n", remove(0, "x:")},
		{"none matches", "## Todos\n- [ ] a\n  > keep\n", "## Todos\n- [ ] a\n  > keep\n", remove(0, "x:")},
		{"loose list keeps its blank lines", "## Todos\n\n- [ ] a\n  > x: n\n\n- [ ] b\n", "## Todos\n\n- [ ] a\n\n- [ ] b\n", remove(0, "x:")},
	})
	c := ParseChecklist([]byte("## Todos\n- [ ] a\n  > x: one\n\n  > x: two\n\n  > keep\n"))
	if n, err := c.RemoveNotes(0, func(n string) bool { return strings.HasPrefix(n, "x:") }); err != nil || n != 2 {
		t.Fatalf("RemoveNotes = %d, %v; want 2, nil", n, err)
	}
	if _, err := c.RemoveNotes(5, func(string) bool { return true }); err == nil {
		t.Fatal("RemoveNotes(5) on a list of one: no error")
	}
}

func TestAdd(t *testing.T) {
	add := func(kind domain.TodoKind, phase string, origin domain.AgentPath, texts ...string) func(*Checklist) error {
		return func(c *Checklist) error { return c.Add(kind, phase, origin, texts) }
	}
	runEdits(t, []editCase{
		{"criterion after the last", "## Acceptance criteria\n\n- [x] one\n\n## Todos\n", "## Acceptance criteria\n\n- [x] one\n- [ ] two\n\n## Todos\n", add(domain.KindCriterion, "", "", "two")},
		{"criterion under text only", "## Acceptance criteria\n\nSome text.\n\n## Todos\n", "## Acceptance criteria\n\nSome text.\n\n- [ ] c\n\n## Todos\n", add(domain.KindCriterion, "", "", "c")},
		{"criterion in an empty section", "## Acceptance criteria\n## Todos\n", "## Acceptance criteria\n\n- [ ] c\n\n## Todos\n", add(domain.KindCriterion, "", "", "c")},
		{"criteria section before todos", "Desc.\n\n## Todos\n- [ ] s\n", "Desc.\n\n## Acceptance criteria\n\n- [ ] c\n- [ ] d\n\n## Todos\n- [ ] s\n", add(domain.KindCriterion, "", "", "c", " d ")},
		{"criteria section before todos, no blank", "Desc.\n## Todos\n", "Desc.\n\n## Acceptance criteria\n\n- [ ] c\n\n## Todos\n", add(domain.KindCriterion, "", "", "c")},
		{"criteria section at the end", "Desc.", "Desc.\n\n## Acceptance criteria\n\n- [ ] c\n", add(domain.KindCriterion, "", "", "c")},
		{"criteria section in an empty body", "", "## Acceptance criteria\n\n- [ ] c\n", add(domain.KindCriterion, "", "", "c")},
		{"todos section at the end", "Desc.\n\n", "Desc.\n\n## Todos\n\n- [ ] s\n", add(domain.KindStep, "", "", "s")},
		{"todos section with a phase", "Desc.\n", "Desc.\n\n## Todos\n\n### UI (from primary.ui)\n- [ ] s\n", add(domain.KindStep, "UI", "primary.ui", "s")},
		{"step after the last unphased", "## Todos\n- [ ] a\n\n### P\n- [ ] b\n", "## Todos\n- [ ] a\n- [ ] s\n\n### P\n- [ ] b\n", add(domain.KindStep, "", "", "s")},
		{"unphased before the first phase", "## Todos\n### P\n- [ ] b\n", "## Todos\n\n- [ ] s\n\n### P\n- [ ] b\n", add(domain.KindStep, "", "", "s")},
		{"into a phase", "## Todos\n### Backend\n- [ ] a\n### Frontend\n- [ ] f\n", "## Todos\n### Backend\n- [ ] a\n- [ ] s\n- [ ] t\n### Frontend\n- [ ] f\n", add(domain.KindStep, "backend", "", "s", "t")},
		{"into an empty phase", "## Todos\n### P\n### Q\n", "## Todos\n### P\n- [ ] s\n\n### Q\n", add(domain.KindStep, "P", "", "s")},
		{"into a phase with text only", "## Todos\n### P\nSome text.\n", "## Todos\n### P\nSome text.\n\n- [ ] s\n", add(domain.KindStep, "P", "", "s")},
		{"new phase", "## Todos\n- [ ] a\n\n## Notes\nx\n", "## Todos\n- [ ] a\n\n### UI (from primary.ui)\n- [ ] s\n\n## Notes\nx\n", add(domain.KindStep, "UI", "primary.ui", "s")},
		{"into the phase without an origin first", "## Todos\n### UI (from primary.a)\n- [ ] a\n\n### ui\n- [ ] b\n", "## Todos\n### UI (from primary.a)\n- [ ] a\n\n### ui\n- [ ] b\n- [ ] s\n", add(domain.KindStep, "UI", "", "s")},
		{"into a phase whose name differs in spacing", "## Todos\n### Front  end\n- [ ] a\n", "## Todos\n### Front  end\n- [ ] a\n- [ ] s\n", add(domain.KindStep, " front end ", "", "s")},
		{"new phase for another origin", "## Todos\n### UI (from primary.a)\n- [ ] a\n", "## Todos\n### UI (from primary.a)\n- [ ] a\n\n### UI (from primary.b)\n- [ ] s\n", add(domain.KindStep, "UI", "primary.b", "s")},
		{"new phase in an empty section", "## Todos\n", "## Todos\n\n### P\n- [ ] s\n", add(domain.KindStep, "P", "", "s")},
		{"crlf", "## Todos\r\n- [ ] a\r\n", "## Todos\r\n- [ ] a\r\n- [ ] s\r\n", add(domain.KindStep, "", "", "s")},
		{"crlf new section", "Desc.\r\n", "Desc.\r\n\r\n## Acceptance criteria\r\n\r\n- [ ] c\r\n", add(domain.KindCriterion, "", "", "c")},
		{"no trailing newline", "## Todos\n- [ ] a", "## Todos\n- [ ] a\n- [ ] s\n", add(domain.KindStep, "", "", "s")},
		{"heading without newline", "## Todos", "## Todos\n\n- [ ] s\n", add(domain.KindStep, "", "", "s")},
		{"after a closed fence and a paragraph", "## Todos\n- [ ] a\n  ```\n  x\n  ```\ntext\n", "## Todos\n- [ ] a\n  ```\n  x\n  ```\n- [ ] s\n\ntext\n", add(domain.KindStep, "", "", "s")},
		{"tabs and unicode", "## Todos\n-\t[ ]\ta\n", "## Todos\n-\t[ ]\ta\n- [ ] Tâche\t✓\n", add(domain.KindStep, "", "", "Tâche\t✓")},
	})
}

func TestAddRefusals(t *testing.T) {
	body := "## Acceptance criteria\n- [ ] Works offline\n## Todos\n- [ ] Write the cache\n"
	tests := []struct {
		name   string
		kind   domain.TodoKind
		phase  string
		origin domain.AgentPath
		texts  []string
		want   string // part of the message
	}{
		{"empty", domain.KindStep, "", "", []string{"  "}, "empty"},
		{"line break", domain.KindStep, "", "", []string{"a\nb"}, "several lines"},
		{"carriage return", domain.KindStep, "", "", []string{"a\rb"}, "several lines"},
		{"duplicate of a step", domain.KindStep, "", "", []string{"write  THE cache"}, `duplicates "Write the cache"`},
		{"duplicate of a criterion", domain.KindStep, "P", "", []string{"works offline"}, `duplicates "Works offline"`},
		{"duplicate within", domain.KindCriterion, "", "", []string{"new", "NEW"}, `duplicates "new"`},
		{"nothing", domain.KindStep, "", "", nil, "nothing to add"},
		{"bad kind", "chore", "", "", []string{"x"}, "unknown todo kind"},
		{"criterion phase", domain.KindCriterion, "P", "", []string{"x"}, "no phases"},
		{"bad origin", domain.KindStep, "P", "Primary", []string{"x"}, "not an agent path"},
		{"origin without phase", domain.KindStep, "", "primary.ui", []string{"x"}, "need a phase name"},
		{"phase with a line break", domain.KindStep, "a\nb", "", []string{"x"}, "several lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(body))
			err := c.Add(tc.kind, tc.phase, tc.origin, tc.texts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Add error = %v, want one saying %q", err, tc.want)
			}
			if string(c.Bytes()) != body || len(c.touched()) != 0 {
				t.Fatalf("a refused Add changed the body: %q", c.Bytes())
			}
		})
	}
	var dup *DuplicateError
	if err := ParseChecklist([]byte(body)).Add(domain.KindStep, "", "", []string{"Write the cache"}); !errors.As(err, &dup) || dup.Existing != "Write the cache" {
		t.Fatalf("duplicate error = %#v", err)
	}
	if err := ParseChecklist([]byte(body)).Add(domain.KindStep, "", "", []string{"Write the cache"}); err.Error() != `the todo "Write the cache" is already on the list; each todo needs its own text` {
		t.Fatalf("duplicate message = %q", err)
	}
	// Text that an unclosed fence in the section would swallow.
	fenced := "## Todos\n```\ncode\n"
	c := ParseChecklist([]byte(fenced))
	if err := c.Add(domain.KindStep, "", "", []string{"s"}); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("Add into an unclosed fence: %v", err)
	}
	if string(c.Bytes()) != fenced {
		t.Fatalf("a refused Add changed the body: %q", c.Bytes())
	}
}

func TestSetSteps(t *testing.T) {
	set := func(phases ...PhaseItems) func(*Checklist) error {
		return func(c *Checklist) error { return c.SetSteps(phases) }
	}
	runEdits(t, []editCase{
		{"keeps status and notes",
			"Desc.\n\n## Acceptance criteria\n- [ ] c\n\n## Todos\n- [x] Old done\n  > kept note\n\n  > second\n- [/] drop me\nuser text\n\n## Notes\nkeep\n",
			"Desc.\n\n## Acceptance criteria\n- [ ] c\n\n## Todos\n\n- [x] old  DONE\n  > kept note\n\n  > second\n- [ ] new\n\n### Later (from primary.ui)\n- [ ] l\n\n## Notes\nkeep\n",
			set(PhaseItems{Texts: []string{"old  DONE", "new"}}, PhaseItems{Name: "Later", Origin: "primary.ui", Texts: []string{"l"}})},
		{"phases only, merged by name", "## Todos\n- [ ] a\n",
			"## Todos\n\n### P\n- [/] A\n- [ ] c\n\n### Q\n- [ ] b\n",
			func(c *Checklist) error {
				if err := c.SetStatus(0, domain.TodoInProgress); err != nil {
					return err
				}
				return c.SetSteps([]PhaseItems{{Name: "P", Texts: []string{"A"}}, {Name: "Q", Texts: []string{"b"}}, {Name: "p", Texts: []string{"c"}}})
			}},
		{"creates the section", "Desc.\n", "Desc.\n\n## Todos\n\n- [ ] a\n", set(PhaseItems{Texts: []string{"a"}})},
		{"empty list", "## Todos\n- [ ] a\n## Notes\n", "## Todos\n\n## Notes\n", set()},
		{"crlf", "## Todos\r\n- [x] a\r\n", "## Todos\r\n\r\n- [x] a\r\n- [ ] b\r\n", set(PhaseItems{Texts: []string{"a", "b"}})},
		{"no trailing newline", "## Todos", "## Todos\n\n- [ ] a\n", set(PhaseItems{Texts: []string{"a"}})},
		{"setext heading kept", "Todos\n-----\n- [ ] a\n", "Todos\n-----\n\n- [ ] b\n", set(PhaseItems{Texts: []string{"b"}})},
	})
	body := "## Acceptance criteria\n- [ ] Works offline\n## Todos\n- [ ] a\n"
	for _, tc := range []struct {
		name   string
		phases []PhaseItems
		want   string
	}{
		{"duplicate of a criterion", []PhaseItems{{Texts: []string{"works offline"}}}, "duplicates"},
		{"duplicate across phases", []PhaseItems{{Name: "P", Texts: []string{"x"}}, {Name: "Q", Texts: []string{"X"}}}, "duplicates"},
		{"empty text", []PhaseItems{{Texts: []string{""}}}, "empty"},
		{"heading that reads back shorter", []PhaseItems{{Name: "Build ##", Texts: []string{"x"}}}, "would not read back"},
		{"name that reads as an origin", []PhaseItems{{Name: "Build (from primary.x)", Texts: []string{"x"}}}, "would not read back"},
		{"bad origin", []PhaseItems{{Name: "P", Origin: "a b", Texts: []string{"x"}}}, "agent path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(body))
			if err := c.SetSteps(tc.phases); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("SetSteps error = %v, want one saying %q", err, tc.want)
			}
			if string(c.Bytes()) != body {
				t.Fatalf("a refused SetSteps changed the body: %q", c.Bytes())
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, before, after string
		fixes               []Fix
	}{
		{"two in progress", "## Todos\n- [/] a\n- [ ] b\n- [/] c\n", "## Todos\n- [/] a\n- [ ] b\n- [ ] c\n",
			[]Fix{{Index: 2, Text: "c", From: domain.TodoInProgress, To: domain.TodoPending}}},
		{"criterion counts as in progress", "## Acceptance criteria\n- [/] c\n## Todos\n- [/] a\n", "## Acceptance criteria\n- [/] c\n## Todos\n- [ ] a\n",
			[]Fix{{Index: 1, Text: "a", From: domain.TodoInProgress, To: domain.TodoPending}}},
		{"promote the first pending step", "## Acceptance criteria\n- [ ] c\n## Todos\n- [x] a\n- [ ] b\n- [ ] c2\n", "## Acceptance criteria\n- [ ] c\n## Todos\n- [x] a\n- [/] b\n- [ ] c2\n",
			[]Fix{{Index: 2, Text: "b", From: domain.TodoPending, To: domain.TodoInProgress}}},
		{"blocked first item is skipped", "## Todos\n- [!] blocked\n- [ ] next\n", "## Todos\n- [!] blocked\n- [/] next\n",
			[]Fix{{Index: 1, Text: "next", From: domain.TodoPending, To: domain.TodoInProgress}}},
		{"only criteria pending", "## Acceptance criteria\n- [ ] c\n## Todos\n- [x] done\n- [-] dropped\n- [!] blocked\n", "", nil},
		{"already fine", "## Todos\n- [x] a\n- [/] b\n- [ ] c\n", "", nil},
		{"empty", "", "", nil},
		{"crlf", "## Todos\r\n- [ ] a\r\n", "## Todos\r\n- [/] a\r\n",
			[]Fix{{Index: 0, Text: "a", From: domain.TodoPending, To: domain.TodoInProgress}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tc.before))
			fixes := c.Normalize()
			if !slices.Equal(fixes, tc.fixes) {
				t.Errorf("fixes = %+v, want %+v", fixes, tc.fixes)
			}
			want := tc.after
			if want == "" {
				want = tc.before
			}
			if got := string(c.Bytes()); got != want {
				t.Errorf("body = %q, want %q", got, want)
			}
			if again := c.Normalize(); again != nil {
				t.Errorf("second Normalize = %+v, want nothing", again)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ name, before, want string }{
		{"spec example is canonical", specBody, specBody},
		{"items, notes and headings",
			"Intro *kept*\n\n##   todos ##\n*   [X] Done thing\n    continued\n\n    >   note  \n    > more\n+ [ ]  b\n1. [/] c\n   >n\n   - nested   kept\n### back  end   \n- [!] d\nplain paragraph kept  \n\nAcceptance Criteria\n-------------------\n- [-]   dropped\n",
			"Intro *kept*\n\n## Todos\n- [x] Done thing continued\n\n  > note\n  > more\n- [ ] b\n- [/] c\n  > n\n   - nested   kept\n### back  end\n- [!] d plain paragraph kept\n\n## Acceptance criteria\n- [-] dropped\n"},
		{"origin heading", "## Todos\n###   UI   (from  primary.ui)  ##\n- [ ] a\n", "## Todos\n### UI (from primary.ui)\n- [ ] a\n"},
		{"crlf", "## TODOS\r\n* [X] a\r\n  >  n\r\n", "## Todos\r\n- [x] a\r\n  > n\r\n"},
		{"no trailing newline", "## Todos\n* [X]  a", "## Todos\n- [x] a"},
		{"empty text", "## Todos\n- [ ]   \n", "## Todos\n- [ ]\n"},
		{"ordered list next to a plain item", "## Todos\n1. [ ] a\n2. plain\n", "## Todos\n- [ ] a\n2. plain\n"},
		{"rewrite that would change meaning is skipped", "## Todos\n  - [ ] a\n\n  > not a note\n- [X] b\n", "## Todos\n  - [ ] a\n\n  > not a note\n- [x] b\n"},
		{"other lists untouched", "## Notes\n* [X] not a todo\n## Todos\n* plain\n", "## Notes\n* [X] not a todo\n## Todos\n* plain\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tc.before))
			got := c.Canonical()
			if string(got) != tc.want {
				t.Fatalf("Canonical =\n%q\nwant\n%q", got, tc.want)
			}
			if string(c.Bytes()) != tc.before {
				t.Fatalf("Canonical changed the checklist")
			}
			if again := ParseChecklist(got).Canonical(); string(again) != string(got) {
				t.Fatalf("Canonical is not idempotent:\n%q\nthen\n%q", got, again)
			}
			if !c.sameShape(ParseChecklist(got)) {
				t.Fatalf("Canonical changed what the list says")
			}
		})
	}
}

func TestFind(t *testing.T) {
	body := "## Acceptance criteria\n- [ ] Tests pass\n## Todos\n- [ ] Write tests\n- [ ] write TESTS for the parser\n### Backend\n- [ ] Add the handler\n- [ ] Add the route\n### Frontend\n- [ ] Add the button\n- [ ] Tests\n"
	c := ParseChecklist([]byte(body))
	tests := []struct {
		query  string
		filter Filter
		want   int    // -1 for an error
		err    string // the error message
	}{
		{"Write tests", Filter{}, 1, ""},
		{"  write   TESTS  ", Filter{}, 1, ""},
		{"Tests", Filter{}, 6, ""},
		{"tests", Filter{}, 6, ""},
		{"parser", Filter{}, 2, ""},
		{"add the", Filter{}, -1, `"add the" matches 3 todos: "Add the handler", "Add the route", "Add the button"; use more of the text`},
		{"add the", Filter{Phase: "backend"}, -1, `"add the" matches 2 todos: "Add the handler", "Add the route"; use more of the text`},
		{"add the", Filter{Phase: "Frontend"}, 5, ""},
		{"tests", Filter{Kind: domain.KindCriterion}, 0, ""},
		{"pass", Filter{Kind: domain.KindCriterion}, 0, ""},
		{"pass", Filter{Kind: domain.KindStep}, -1, `no todo matches "pass"; did you mean "Tests"?`},
		{"add teh handler", Filter{}, -1, `no todo matches "add teh handler"; did you mean "Add the handler"?`},
		{"x", Filter{Phase: "Nope"}, -1, `no todo matches "x"; phase "Nope" has no todos`},
		{"x", Filter{Phase: "Nope", Kind: domain.KindStep}, -1, `no todo matches "x"; there is no step in phase "Nope"`},
		{"", Filter{}, -1, "name the todo by its text"},
	}
	for _, tc := range tests {
		got, err := c.Find(tc.query, tc.filter)
		if tc.want >= 0 {
			if err != nil || got != tc.want {
				t.Errorf("Find(%q, %+v) = %d, %v; want %d", tc.query, tc.filter, got, err, tc.want)
			}
			continue
		}
		if err == nil || err.Error() != tc.err {
			t.Errorf("Find(%q, %+v) error = %v; want %s", tc.query, tc.filter, err, tc.err)
		}
	}
	_, err := ParseChecklist(nil).Find("x", Filter{})
	var ae *AddressError
	if !errors.As(err, &ae) || err.Error() != `no todo matches "x"; the list is empty` {
		t.Errorf("Find on an empty list = %v", err)
	}
	_, err = ParseChecklist([]byte("## Todos\n- [ ] same\n- [ ] same\n")).Find("same", Filter{})
	if !errors.As(err, &ae) || len(ae.Candidates) != 2 {
		t.Errorf("Find with duplicate texts = %v", err)
	}
}

func TestFindOpen(t *testing.T) {
	c := ParseChecklist([]byte("## Todos\n- [x] Reject an empty password\n- [ ] Reject an empty password on reset\n- [-] Log the empty password\n- [ ] Hash the password\n- [ ] Salt the password\n"))
	for _, tc := range []struct {
		query string
		open  bool
		want  int // -1 for an ambiguity
	}{
		{"empty password", false, -1},
		{"empty password", true, 1},           // the one open of three
		{"the password", true, -1},            // two open: still ambiguous
		{"Reject an empty password", true, 0}, // an exact match wins over preference
	} {
		got, err := c.Find(tc.query, Filter{Open: tc.open})
		if tc.want < 0 {
			var ae *AddressError
			if !errors.As(err, &ae) || len(ae.Candidates) < 2 {
				t.Errorf("Find(%q, open %v) = %d, %v; want an ambiguity", tc.query, tc.open, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Find(%q, open %v) = %d, %v; want %d", tc.query, tc.open, got, err, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	wantSpec := `## Acceptance criteria
- [x] A user can sign in with a GitHub account
- [ ] Expired tokens refresh without a prompt

## Todos
### Backend
- [x] Register the OAuth app config
- [/] Implement the callback handler
  > state parameter must be verified
- [ ] Integration test against a fake provider
- [-] Try the device flow

### Frontend (from primary.subagents.ui)
- [!] Login button
  > blocked: waiting for the design tokens
`
	tests := []struct{ name, body, want string }{
		{"spec example", specBody, wantSpec},
		{"crlf", strings.ReplaceAll(specBody, "\n", "\r\n"), wantSpec},
		{"empty", "Desc.\n\n## Acceptance criteria\n\n## Todos\n### Empty\n", ""},
		{"steps only, unphased first, empty phases left out", "## Todos\n\n- [ ] a\n  - nested\n\n### Empty\n### P\n- [x] b", "## Todos\n- [ ] a\n  - nested\n\n### P\n- [x] b\n"},
		{"criteria only", "## Acceptance criteria\n* [ ] c\n", "## Acceptance criteria\n* [ ] c\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseChecklist([]byte(tc.body)).Render(); got != tc.want {
				t.Fatalf("Render =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestIndexRefusals(t *testing.T) {
	c := ParseChecklist([]byte("## Todos\n- [ ] a\n"))
	for _, err := range []error{c.SetStatus(1, domain.TodoCompleted), c.SetStatus(-1, domain.TodoCompleted), c.AddNote(3, "n")} {
		if err == nil || !strings.Contains(err.Error(), "no todo at index") {
			t.Errorf("error = %v, want an index refusal", err)
		}
	}
	if err := c.SetStatus(0, "done"); err == nil || !strings.Contains(err.Error(), "unknown todo status") {
		t.Errorf("SetStatus with a bad status = %v", err)
	}
	if err := c.AddNote(0, " \n "); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("AddNote with an empty note = %v", err)
	}
	if string(c.Bytes()) != "## Todos\n- [ ] a\n" {
		t.Errorf("refusals changed the body: %q", c.Bytes())
	}
}

// benchBody is a typical body: a description, criteria and 20 steps in
// phases, some with notes.
func benchBody() []byte {
	var b strings.Builder
	b.WriteString("Users should be able to sign in with their GitHub account instead of a\npassword. Tokens are stored encrypted and refreshed in the background.\n\n")
	b.WriteString("## Acceptance criteria\n\n- [x] A user can sign in with a GitHub account\n- [ ] Expired tokens refresh without a prompt\n- [ ] Sign-out revokes the token\n\n## Todos\n")
	for p := 0; p < 4; p++ {
		fmt.Fprintf(&b, "\n### Phase %d\n", p+1)
		for i := 0; i < 5; i++ {
			fmt.Fprintf(&b, "- [%c] Step %d of phase %d: do the next careful thing\n", " x/-!"[i], i+1, p+1)
			if i%2 == 0 {
				fmt.Fprintf(&b, "  > a note on step %d with `code` and a [link](https://example.com)\n", i+1)
			}
		}
	}
	return []byte(b.String())
}

// BenchmarkParseChecklist measures reading the checklist of a typical body,
// which every todo command does.
func BenchmarkParseChecklist(b *testing.B) {
	body := benchBody()
	if n := len(ParseChecklist(body).Items()); n != 23 {
		b.Fatalf("bench body has %d items, want 23", n)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ParseChecklist(body)
	}
}

// BenchmarkTodoMutation measures a parse, a status change, Normalize and
// Render: the checklist's share of one todo command.
func BenchmarkTodoMutation(b *testing.B) {
	body := benchBody()
	b.ReportAllocs()
	for b.Loop() {
		c := ParseChecklist(body)
		if err := c.SetStatus(5, domain.TodoCompleted); err != nil {
			b.Fatal(err)
		}
		c.Normalize()
		_ = c.Render()
	}
}

// TestSetStepsKeepsTheAuthorsText checks that set refuses, changing
// nothing, when the Todos section holds text of the author's that
// rewriting the section would drop, and goes ahead when it holds only
// steps, their notes and nested lists, phase headings and blank lines.
func TestSetStepsKeepsTheAuthorsText(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		refused    bool
	}{
		{"a paragraph", "## Todos\n- [ ] a\n\nSome prose about the plan.\n", true},
		{"a code block", "## Todos\n\n```\nmake test\n```\n- [ ] a\n", true},
		{"a list without checkboxes", "## Todos\n- [ ] a\n\n- plain bullet\n", true},
		{"text under a phase", "## Todos\n### P\nwhy this phase\n\n- [ ] a\n", true},
		{"only steps, notes, nested lists, phases", "## Todos\n- [ ] a\n  > note\n  - nested\n\n### P\n- [x] b\n\n", false},
		{"a lazy continuation belongs to its item", "## Todos\n- [ ] a\ncontinued\n", false},
		{"other sections are not set's business", "## Todos\n- [ ] a\n\n## Notes\nprose\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseChecklist([]byte(tc.body))
			err := c.SetSteps([]PhaseItems{{Texts: []string{"new"}}})
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "not a todo") {
					t.Fatalf("SetSteps error = %v, want a refusal", err)
				}
				if string(c.Bytes()) != tc.body {
					t.Fatalf("a refused SetSteps changed the body: %q", c.Bytes())
				}
				return
			}
			if err != nil {
				t.Fatalf("SetSteps: %v", err)
			}
		})
	}
}

// TestRemoveNotesProperties removes notes from bodies assembled from
// fragments where notes meet other markdown (nested lists, lazy lines,
// fences, quotes, blank lines): RemoveNotes either refuses and changes
// nothing, or removes exactly the notes asked for, keeps every other item
// as it was, and records edits that replay to the new body.
func TestRemoveNotesProperties(t *testing.T) {
	fragments := []string{
		"## Todos", "### Backend", "- [ ] a", "- [!] b", "1. [/] c", "  > note one", "  > blocked: x", "  >", "  > more",
		"> quoted", "  - nested", "lazy text", "", "", "  ```", "```", "    indented code", "Text paragraph.", "## Notes",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n, removals := 2000, 0
	if testing.Short() {
		n = 100
	}
	for d := 0; d < n; d++ {
		parts := []string{"## Todos"}
		for len(parts) < 3+rng.IntN(14) {
			f := fragments[rng.IntN(len(fragments))]
			parts = append(parts, f)
			if strings.Contains(f, "[") && rng.IntN(4) > 0 {
				// Most items get notes, some apart by a blank line.
				for k := rng.IntN(3); k >= 0; k-- {
					if rng.IntN(3) == 0 {
						parts = append(parts, "")
					}
					parts = append(parts, fragments[5+rng.IntN(4)])
				}
			}
		}
		body := []byte(strings.Join(parts, "\n") + "\n")
		c := ParseChecklist(body)
		before := c.Items()
		for i, it := range before {
			if len(it.Notes) == 0 {
				continue
			}
			parity := rng.IntN(2)
			k := -1
			drop := func(string) bool { k++; return k%2 == parity }
			var want []string
			for j, note := range it.Notes {
				if j%2 != parity {
					want = append(want, note)
				}
			}
			w := ParseChecklist(body)
			removed, err := w.RemoveNotes(i, drop)
			if err != nil {
				if !bytes.Equal(w.body, body) || len(w.touched()) != 0 {
					t.Fatalf("refused (%v) but changed\n%q\nto\n%q", err, body, w.body)
				}
				continue
			}
			if removed > 0 {
				removals++
			}
			if removed != len(it.Notes)-len(want) {
				t.Fatalf("removed %d of %d notes, want %d, in\n%q", removed, len(it.Notes), len(it.Notes)-len(want), body)
			}
			got := w.Items()
			if len(got) != len(before) || !slices.Equal(got[i].Notes, want) {
				t.Fatalf("notes %q, want %q, after removing from\n%q\ngot\n%q", got[i].Notes, want, body, w.body)
			}
			for j := range before {
				if j != i && !sameItem(got[j], before[j]) {
					t.Fatalf("item %d changed: %+v, was %+v, in\n%q\ngot\n%q", j, got[j], before[j], body, w.body)
				}
			}
			replayed := body
			for _, e := range w.touched() {
				replayed = slices.Concat(replayed[:e.off:e.off], []byte(e.ins), replayed[e.off+e.del:])
			}
			if !bytes.Equal(replayed, w.body) {
				t.Fatalf("replaying the edits gives\n%q\nbut the body is\n%q", replayed, w.body)
			}
		}
	}
	// The bodies must exercise removal, not only refusals and no-ops.
	if removals < n/10 {
		t.Fatalf("only %d removals in %d bodies", removals, n)
	}
}
