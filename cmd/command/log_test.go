package command

import (
	"testing"
	"time"
)

func TestLogOptions(t *testing.T) {
	testParse(t, (*runner).logCommand, []parseCase[LogOptions]{
		{name: "id", argv: []string{"log", "k3x"}, want: LogOptions{Issue: "k3x"}},
		{name: "limit", argv: []string{"log", "k3x", "-n", "5"}, want: LogOptions{Issue: "k3x", Limit: 5}},
		{name: "negative limit", argv: []string{"log", "k3x", "--limit", "-1"}, usage: true},
		{name: "not a number", argv: []string{"log", "k3x", "--limit", "five"}, usage: true},
		{name: "no id: the repository's log", argv: []string{"log"}, want: LogOptions{}},
		{name: "since and author", argv: []string{"log", "--since", "3d", "--author", "bob"}, want: LogOptions{Since: "3d", Author: "bob"}},
		{name: "--issue", argv: []string{"log", "--issue", "k3x"}, want: LogOptions{Issue: "k3x"}},
		{name: "an ID and --since", argv: []string{"log", "k3x", "--since", "1w"}, usage: true},
		{name: "two IDs", argv: []string{"log", "a", "b"}, usage: true},
	})
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want string // RFC 3339; "" for a usage error
	}{
		{"1w", "2026-11-14T10:00:00Z"},
		{"3d", "2026-11-18T10:00:00Z"},
		{"12h", "2026-11-20T22:00:00Z"},
		{"30m", "2026-11-21T09:30:00Z"},
		{"0d", "2026-11-21T10:00:00Z"},
		{"2026-11-01", "2026-11-01T00:00:00Z"},
		{"2026-11-01T09:00:00+01:00", "2026-11-01T08:00:00Z"},
		{"-1d", ""},
		{"1y", ""},
		{"yesterday", "2026-11-20T00:00:00Z"},
		{"Today", "2026-11-21T00:00:00Z"},
		{"last tuesday", ""},
		{"", ""},
	} {
		got, err := parseSince(tc.in, now)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("parseSince(%q) = %v, want an error", tc.in, got)
		case tc.want != "" && (err != nil || got.UTC().Format(time.RFC3339) != tc.want):
			t.Errorf("parseSince(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestDetailValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"open", "open"},
		{"", "none"},
		{"Callback done.", `"Callback done."`},
		{`say "hi"`, `"say \"hi\""`},
		{nil, "none"},
		{true, "true"},
		{float64(3), "3"},
		{[]any{"priority", "labels"}, "priority,labels"},
		{[]any{}, "none"},
		{map[string]any{"from": "", "to": "ses_x"}, "none->ses_x"},
		{map[string]any{"from": "P2", "to": "P1"}, "P2->P1"},
		{map[string]any{"b": "two words", "a": float64(1)}, `{a:1,b:"two words"}`},
	} {
		if got := detailValue(tc.in); got != tc.want {
			t.Errorf("detailValue(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
