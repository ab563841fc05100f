package gitrepo

import (
	"reflect"
	"testing"
)

func TestBodyTrailerBlocks(t *testing.T) {
	for _, tt := range []struct {
		name, msg string
		want      [][]Trailer
	}{
		{"a title alone", "Td-Session: ses_1\n", nil},
		{"the last block is git's", "td: start td-a\n\nTd-Session: ses_1\nTd-Action: started\n", nil},
		{"a squash", "Work on td-a (#3)\n\n* td: start td-a\n\nTd-Session: ses_1\nTd-Action: started\nTd-Issue: td-a\n\n* td: edit td-a\n\nTd-Session: ses_1\nTd-Action: edited\n\n* td: close td-a\n\nTd-Session: ses_1\nTd-Action: closed\n",
			[][]Trailer{{{"Td-Session", "ses_1"}, {"Td-Action", "started"}, {"Td-Issue", "td-a"}}, {{"Td-Session", "ses_1"}, {"Td-Action", "edited"}}}},
		{"prose is no block", "Title\n\nWhy: because\nit is so\n\nTd-Session: ses_2\n\nend\n", [][]Trailer{{{"Td-Session", "ses_2"}}}},
		{"a continuation", "Title\n\nTd-Issue: td-a\n  td-b\n\nend\n", [][]Trailer{{{"Td-Issue", "td-a td-b"}}}},
		{"comments and CRLF", "Title\r\n\r\n# a comment\r\nTd-Session: ses_3\r\n\r\nend\r\n", [][]Trailer{{{"Td-Session", "ses_3"}}}},
		{"a paragraph starting indented", "Title\n\n  Td-Session: ses_4\n\nend\n", nil},
	} {
		if got := (&Commit{Message: tt.msg}).BodyTrailerBlocks(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: BodyTrailerBlocks = %q, want %q", tt.name, got, tt.want)
		}
	}
}
