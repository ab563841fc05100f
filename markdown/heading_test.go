package markdown

import (
	"strings"
	"testing"
)

func TestHeadings(t *testing.T) {
	type h struct {
		level int
		text  string
		line  string // the bytes of body[Start:End]
	}
	tests := []struct {
		name string
		body string
		want []h
	}{
		{"atx", "intro\n\n## Acceptance criteria\n\n- [ ] a\n\n## Todos ##\n### Backend\n- [x] b\n",
			[]h{{2, "Acceptance criteria", "## Acceptance criteria\n"}, {2, "Todos", "## Todos ##\n"}, {3, "Backend", "### Backend\n"}}},
		{"indented atx and no trailing newline", "   ## Todos", []h{{2, "Todos", "   ## Todos"}}},
		{"empty atx", "#\n\n##\n", []h{{1, "", "#\n"}, {2, "", "##\n"}}},
		{"setext", "Title\n=====\n\nTodos\n---\nafter\n", []h{{1, "Title", "Title\n=====\n"}, {2, "Todos", "Todos\n---\n"}}},
		{"multi-line setext", "one\ntwo\n---\n", []h{{2, "one\ntwo", "one\ntwo\n---\n"}}},
		{"crlf", "text\r\n\r\n## Todos\r\nSetext\r\n------\r\n", []h{{2, "Todos", "## Todos\r\n"}, {2, "Setext", "Setext\r\n------\r\n"}}},
		{"fenced code", "```\n## Todos\n```\n\n~~~md\n## Acceptance criteria\n~~~\n", nil},
		{"unclosed fence", "```\n## Todos\n", nil},
		{"indented code", "    ## Todos\n", nil},
		{"html block", "<div>\n\n## Todos\n\n</div>\n", []h{{2, "Todos", "## Todos\n"}}},
		{"html block without blank lines", "<div>\n## Todos\n</div>\n", nil},
		{"html comment", "<!--\n## Todos\n-->\n", nil},
		{"list", "- item\n\n  ## Todos\n", nil},
		{"blockquote", "> ## Todos\n", nil},
		{"not a heading", "#hashtag\n####### seven\n", nil},
		{"tabs", "##\tTodos\t\n", []h{{2, "Todos", "##\tTodos\t\n"}}},
		{"table then heading", "| a | b |\n|---|---|\n| 1 | 2 |\n\n## Todos\n", []h{{2, "Todos", "## Todos\n"}}},
		{"unicode", "## Tâches ✓\n", []h{{2, "Tâches ✓", "## Tâches ✓\n"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Headings([]byte(tc.body))
			if len(got) != len(tc.want) {
				t.Fatalf("Headings = %+v, want %d headings", got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Level != w.level || g.Text != w.text || tc.body[g.Start:g.End] != w.line {
					t.Errorf("heading %d = {%d %q %q}, want {%d %q %q}", i, g.Level, g.Text, tc.body[g.Start:g.End], w.level, w.text, w.line)
				}
			}
		})
	}
}

func TestDescriptionEnd(t *testing.T) {
	tests := []struct {
		name, body, rest string // rest is body[DescriptionEnd:]
	}{
		{"criteria", "Free text.\n\n## Acceptance criteria\n- [ ] a\n## Todos\n", "## Acceptance criteria\n- [ ] a\n## Todos\n"},
		{"todos only", "Free text.\n\n## Todos\n- [ ] a\n", "## Todos\n- [ ] a\n"},
		{"case and spaces", "x\n\n##   TODOS   \n", "##   TODOS   \n"},
		{"acceptance mixed case", "x\n\n## acceptance Criteria #\n", "## acceptance Criteria #\n"},
		{"setext todos", "x\n\nTodos\n-----\n- [ ] a\n", "Todos\n-----\n- [ ] a\n"},
		{"level 3 is not the end", "x\n### Todos\n## Notes\n", ""},
		{"other level 2 headings are description", "## Background\ntext\n## Todos\n", "## Todos\n"},
		{"fenced fake todos", "```md\n## Todos\n```\n## Todos\n", "## Todos\n"},
		{"html fake todos", "<details>\n## Todos\n</details>\n\n## Todos\n", "## Todos\n"},
		{"none", "just text\n", ""},
		{"empty", "", ""},
		{"crlf", "text\r\n\r\n## Todos\r\n", "## Todos\r\n"},
		{"similar title", "## Todos later\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			end := DescriptionEnd([]byte(tc.body))
			if got := tc.body[end:]; got != tc.rest {
				t.Fatalf("body[DescriptionEnd:] = %q, want %q", got, tc.rest)
			}
		})
	}
}

func TestHeadingsOfSpecExample(t *testing.T) {
	body := "\nFree description, any markdown.\n\n## Acceptance criteria\n\n- [x] A user can sign in\n\n## Todos\n\n### Backend\n- [x] Register\n\n### Frontend (from primary.subagents.ui)\n- [!] Login button\n  > blocked: waiting\n"
	var titles []string
	for _, h := range Headings([]byte(body)) {
		titles = append(titles, h.Text)
	}
	want := "Acceptance criteria|Todos|Backend|Frontend (from primary.subagents.ui)"
	if strings.Join(titles, "|") != want {
		t.Fatalf("titles = %q", titles)
	}
	if end := DescriptionEnd([]byte(body)); body[:end] != "\nFree description, any markdown.\n\n" {
		t.Fatalf("description = %q", body[:end])
	}
}
