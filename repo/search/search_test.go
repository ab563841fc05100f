package search

import (
	"strconv"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"OAuth callback", "oauth callback"},
		{"  state   parameter ", "state parameter"},
		{"td-qkm5oz", "td-qkm5oz"},
		{"the callback, the CALLBACK!", "the callback"},
		{"/auth/github.", "auth/github"},
		{"!!! ???", ""},
		{"ünïcode Wörds", "unicode words"},
		{"Café", "cafe"},
	} {
		if got := strings.Join(Words(tc.in), " "); got != tc.want {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBodyLines(t *testing.T) {
	file := strings.Join([]string{
		"---",
		"id: td-abc123",
		"title: T",
		"---",
		"",
		"The description.",
		"",
		"```",
		"- [ ] not a todo: code in the description",
		"```",
		"",
		"## Acceptance criteria",
		"",
		"- [ ] A criterion",
		"",
		"## Todos",
		"",
		"### Build",
		"",
		"- [x] A done step",
		"  > a note",
		"* [ ] Another step",
		"",
	}, "\n")
	var got []string
	for _, l := range bodyLines([]byte(file)) {
		got = append(got, l.where+":"+strconv.Itoa(l.n)+":"+l.text)
	}
	want := []string{
		"description:6:The description.",
		"description:8:```",
		"description:9:- [ ] not a todo: code in the description",
		"description:10:```",
		"criterion:14:A criterion",
		"todo:20:A done step",
		"note:21:a note",
		"todo:22:Another step",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bodyLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
