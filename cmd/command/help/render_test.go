package help

import "testing"

func TestRender(t *testing.T) {
	md := "# The title\n" +
		"\n" +
		"## Section with `a/path.md`\n" +
		"\n" +
		"Prose with `code **kept**`, **bold**, a [link](https://example.com) and \\| a pipe.\n" +
		"- a list item\n" +
		"  continued\n" +
		"\n" +
		"```\n" +
		"code   # spacing kept, `ticks` kept\n" +
		"\n" +
		"more\n" +
		"```\n" +
		"\n" +
		"- item with a code block:\n" +
		"\n" +
		"  ```\n" +
		"  indented in the list\n" +
		"    and deeper\n" +
		"  ```\n" +
		"\n" +
		"### Sub heading with `td list`\n" +
		"| kind | inverse |\n" +
		"| --- | --- |\n" +
		"| `child_of` | `parent_of` |\n" +
		"| `a\\|b` | x |\n" +
		"\n\n"
	want := "The title\n" +
		"\n" +
		"SECTION WITH a/path.md\n" +
		"\n" +
		"   Prose with code **kept**, bold, a link (https://example.com) and | a pipe.\n" +
		"   - a list item\n" +
		"     continued\n" +
		"\n" +
		"      code   # spacing kept, `ticks` kept\n" +
		"\n" +
		"      more\n" +
		"\n" +
		"   - item with a code block:\n" +
		"\n" +
		"      indented in the list\n" +
		"        and deeper\n" +
		"\n" +
		"Sub heading with td list\n" +
		"   kind      inverse\n" +
		"   child_of  parent_of\n" +
		"   a|b       x\n"
	if got := Render(md); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func TestInline(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"`td help format`", "td help format"},
		{"``a ` b``", "a ` b"},
		{"an open ` tick", "an open ` tick"},
		{"**bold** and snake_case_name", "bold and snake_case_name"},
		{"[text](url)", "text (url)"},
		{"[not a link] (x)", "[not a link] (x)"},
		{`\* star`, "* star"},
	} {
		if got := Inline(tc.in); got != tc.want {
			t.Errorf("Inline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
