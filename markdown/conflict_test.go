package markdown

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestConflicts(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []Conflict
		ours   string
		theirs string
	}{
		{"none", "---\nid: a\n---\nbody\n", nil, "", ""},
		{"a setext heading is not a conflict", "Title\n=======\n\ntext\n", nil, "", ""},
		{"an opening marker never closed is text", "<<<<<<< ours\na\n=======\nb\n", nil, "", ""},
		{"a marker needs exactly seven characters", "<<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n", nil, "", ""},
		{"a label needs a space", "<<<<<<<ours\na\n=======\nb\n>>>>>>> theirs\n", nil, "", ""},
		{"one region", "x\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\ny\n",
			[]Conflict{{Start: 2, Mid: 4, End: 6}}, "x\na\ny\n", "x\nb\ny\n"},
		{"bare markers", "<<<<<<<\na\n=======\nb\n>>>>>>>\n",
			[]Conflict{{Start: 1, Mid: 3, End: 5}}, "a\n", "b\n"},
		{"diff3 base section", "<<<<<<< ours\na\n||||||| base\no\n=======\nb\n>>>>>>> theirs\n",
			[]Conflict{{Start: 1, Base: 3, Mid: 5, End: 7}}, "a\n", "b\n"},
		{"CRLF", "x\r\n<<<<<<< ours\r\na\r\n=======\r\nb\r\n>>>>>>> theirs\r\n",
			[]Conflict{{Start: 2, Mid: 4, End: 6}}, "x\r\na\r\n", "x\r\nb\r\n"},
		{"two regions and an empty side", "<<<<<<< ours\na\n=======\n>>>>>>> theirs\nm\n<<<<<<< ours\n=======\nb\n>>>>>>> theirs",
			[]Conflict{{Start: 1, Mid: 3, End: 4}, {Start: 6, Mid: 7, End: 9}}, "a\nm\n", "m\nb\n"},
		{"an example inside a code fence is text", "Like this:\n\n```\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n```\n", nil, "", ""},
		{"an example inside a tilde fence is text", "~~~~ text\n<<<<<<< ours\n=======\n>>>>>>> theirs\n~~~~\n", nil, "", ""},
		{"a conflict after a closed fence counts", "```\ncode\n```\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n",
			[]Conflict{{Start: 4, Mid: 6, End: 8}}, "```\ncode\n```\na\n", "```\ncode\n```\nb\n"},
		{"a conflict over a fence line counts", "```\n<<<<<<< ours\ncode\n```\n=======\ncode\n>>>>>>> theirs\n",
			[]Conflict{{Start: 2, Mid: 5, End: 7}}, "```\ncode\n```\n", "```\ncode\n"},
		{"a second opening restarts the region", "<<<<<<< one\n<<<<<<< two\na\n=======\nb\n>>>>>>> theirs\n",
			[]Conflict{{Start: 2, Mid: 4, End: 6}}, "<<<<<<< one\na\n", "<<<<<<< one\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Conflicts([]byte(tt.in))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Conflicts = %+v, want %+v", got, tt.want)
			}
			ours, theirs := string(Side([]byte(tt.in), true)), string(Side([]byte(tt.in), false))
			if tt.want == nil {
				tt.ours, tt.theirs = tt.in, tt.in
			}
			if ours != tt.ours || theirs != tt.theirs {
				t.Fatalf("sides %q / %q, want %q / %q", ours, theirs, tt.ours, tt.theirs)
			}
		})
	}
}

func TestParseRefusesConflictMarkers(t *testing.T) {
	in := "---\nid: td-aaaaaa\n<<<<<<< ours\ntitle: One\n=======\ntitle: Two\n>>>>>>> theirs\n---\n"
	_, err := Parse([]byte(in))
	var me *Error
	if !errors.As(err, &me) || !me.Conflict || me.Line != 3 || me.Msg != ConflictMsg {
		t.Fatalf("Parse error = %#v, want a conflict at line 3", err)
	}
	if _, err := Parse(Side([]byte(in), true)); err != nil {
		t.Fatalf("ours side does not parse: %v", err)
	}
}

// FuzzConflicts checks the parser's promises on any input: regions are
// ordered and well formed, Side drops exactly the marker lines and one
// side of each region, and input without regions is returned unchanged.
func FuzzConflicts(f *testing.F) {
	for _, s := range []string{
		"", "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n",
		"<<<<<<< ours\na\n||||||| base\no\n=======\nb\n>>>>>>> theirs",
		"x\r\n<<<<<<<\r\n=======\r\n>>>>>>>\r\n", "=======\n>>>>>>>\n<<<<<<<\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		regions := Conflicts(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		prev := 0
		dropped := 0
		for _, c := range regions {
			if c.Start <= prev || c.Mid <= c.Start || c.End <= c.Mid || c.End > lines ||
				(c.Base != 0 && (c.Base <= c.Start || c.Base >= c.Mid)) {
				t.Fatalf("bad region %+v after line %d in %q", c, prev, data)
			}
			prev = c.End
			dropped += 3
			if c.Base != 0 {
				dropped += c.Mid - c.Base
			}
		}
		ours, theirs := Side(data, true), Side(data, false)
		if len(regions) == 0 {
			if !bytes.Equal(ours, data) || !bytes.Equal(theirs, data) {
				t.Fatalf("Side changed a file without regions: %q", data)
			}
			return
		}
		nl := func(b []byte) int { return len(strings.Split(string(b), "\n")) }
		oursSide, theirsSide := 0, 0
		for _, c := range regions {
			end := c.Mid
			if c.Base != 0 {
				end = c.Base
			}
			oursSide += end - c.Start - 1
			theirsSide += c.End - c.Mid - 1
		}
		if got, want := nl(ours), lines-dropped-theirsSide; got != want && got != want+1 && got != want-1 {
			t.Fatalf("ours has %d lines, want about %d: %q -> %q", got, want, data, ours)
		}
		if got, want := nl(theirs), lines-dropped-oursSide; got != want && got != want+1 && got != want-1 {
			t.Fatalf("theirs has %d lines, want about %d: %q -> %q", got, want, data, theirs)
		}
	})
}
