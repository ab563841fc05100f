package command

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/links"
)

// listedIssueJSON is one issue of td list --json: its fields, how many
// children it has (present only when it has some), and its claim.
type listedIssueJSON struct {
	issueJSON
	*listChildrenJSON
	Claim *claimJSON `json:"claim,omitempty"`
}

// listChildrenJSON counts a listed issue's children (child_of links to it).
type listChildrenJSON struct {
	Children       int `json:"children"`
	ChildrenClosed int `json:"children_closed"`
}

// writeIssueListJSON writes list exactly as encoding/json would with
// SetIndent("", "  ") and SetEscapeHTML(false), without reflection and
// without re-indenting a buffer: at 10,000 issues that costs half of
// `td list --json`. TestIssueListJSONMatchesEncodingJSON holds it to
// encoding/json byte for byte.
//
// claimOf, when not nil, gives an issue's claim to add as "claim" (nil
// for none); the few claims are encoded by encoding/json, indented to fit.
// kids counts the children of the issues that have any: those get
// "children" and "children_closed" (listedIssueJSON's shape).
func writeIssueListJSON(w io.Writer, list []*repo.Issue, claimOf func(*repo.Issue) *claimJSON, kids map[string]links.ChildCount) error {
	if len(list) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	b := make([]byte, 0, 64<<10)
	b = append(b, "[\n"...)
	for i, is := range list {
		j := toIssueJSON(is)
		b = append(b, "  {\n"...)
		b = field(b, "id", j.ID, false)
		b = field(b, "title", j.Title, false)
		b = field(b, "status", string(j.Status), false)
		b = field(b, "type", string(j.Type), false)
		b = field(b, "priority", string(j.Priority), false)
		b = append(b, `    "minor": `...)
		b = strconv.AppendBool(b, j.Minor)
		b = append(b, ",\n"...)
		b = append(b, `    "labels": `...)
		b = appendJSONStrings(b, j.Labels, "    ")
		b = append(b, ",\n"...)
		b = field(b, "created_by", j.CreatedBy, false)
		b = field(b, "implementer", j.Implementer, false)
		b = field(b, "assignee", j.Assignee, false)
		b = field(b, "resolution", string(j.Resolution), false)
		b = append(b, `    "links": `...)
		if len(j.Links) == 0 {
			b = append(b, "[],\n"...)
		} else {
			b = append(b, "[\n"...)
			for k, l := range j.Links {
				b = append(b, "      {\n        \"kind\": "...)
				b = appendJSONString(b, string(l.Kind))
				b = append(b, ",\n        \"to\": "...)
				b = appendJSONString(b, l.To)
				b = append(b, "\n      }"...)
				if k < len(j.Links)-1 {
					b = append(b, ',')
				}
				b = append(b, '\n')
			}
			b = append(b, "    ],\n"...)
		}
		b = field(b, "created_at", j.CreatedAt, false)
		b = field(b, "updated_at", j.UpdatedAt, false)
		var claim *claimJSON
		if claimOf != nil {
			claim = claimOf(is)
		}
		k := kids[is.ID]
		b = field(b, "path", j.Path, !j.Conflicted && k.Total == 0 && claim == nil)
		if j.Conflicted {
			b = append(b, "    \"conflicted\": true"...)
			if k.Total > 0 || claim != nil {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		if k.Total > 0 {
			b = append(b, "    \"children\": "...)
			b = strconv.AppendInt(b, int64(k.Total), 10)
			b = append(b, ",\n    \"children_closed\": "...)
			b = strconv.AppendInt(b, int64(k.Closed), 10)
			if claim != nil {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		if claim != nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("    ", "  ")
			if err := enc.Encode(claim); err != nil {
				return err
			}
			b = append(b, `    "claim": `...)
			b = append(b, buf.Bytes()...)
		}
		b = append(b, "  }"...)
		if i < len(list)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		if len(b) > 60<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	b = append(b, "]\n"...)
	_, err := w.Write(b)
	return err
}

func field(b []byte, key, value string, last bool) []byte {
	b = append(b, `    "`...)
	b = append(b, key...)
	b = append(b, `": `...)
	b = appendJSONString(b, value)
	if !last {
		b = append(b, ',')
	}
	return append(b, '\n')
}

const hexDigits = "0123456789abcdef"

// appendJSONStrings appends ss as json.MarshalIndent lays out an array
// whose closing bracket is indented by indent: "[]" when empty, else one
// string a line, two spaces deeper.
func appendJSONStrings(b []byte, ss []string, indent string) []byte {
	if len(ss) == 0 {
		return append(b, "[]"...)
	}
	b = append(b, "[\n"...)
	for i, s := range ss {
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendJSONString(b, s)
		if i < len(ss)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, indent...)
	return append(b, ']')
}

// appendJSONString appends s as encoding/json encodes a string with HTML
// escaping off: quotes, backslashes and control characters escaped, invalid
// UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
