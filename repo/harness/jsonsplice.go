package harness

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// The splice below adds td's hooks to a config file td has already read
// and checked as valid JSON, by inserting text at the right offsets of the
// file's own bytes: every byte of the user's stays where it was, layout
// and all. The inserted text follows the layout around it (one line per
// entry in an indented container, inline in a one-line one).

// jsonSpan is one member of a JSON object (key and value) or one element
// of an array (value only), by byte offsets into the document.
type jsonSpan struct {
	key        string
	start, end int // the value: data[start:end]
	lineStart  int // the offset where the member's text starts (its key, or the value)
}

// container is an object or array: the offsets of its brackets and its
// members or elements.
type container struct {
	open, close int
	items       []jsonSpan
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value that starts at i
// (valid JSON assumed).
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		for i++; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipValue(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\r\n", rune(data[i])) {
		i++
	}
	return i
}

// readContainer reads the object or array whose bracket is at open.
func readContainer(data []byte, open int) container {
	c := container{open: open}
	isObject := data[open] == '{'
	i := skipSpace(data, open+1)
	for i < len(data) && data[i] != '}' && data[i] != ']' {
		s := jsonSpan{lineStart: i}
		if isObject {
			end := skipValue(data, i)
			json.Unmarshal(data[i:end], &s.key)
			i = skipSpace(data, end)
			i = skipSpace(data, i+1) // the colon
		}
		s.start = i
		s.end = skipValue(data, i)
		c.items = append(c.items, s)
		i = skipSpace(data, s.end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	c.close = i
	return c
}

func (c container) member(key string) (jsonSpan, bool) {
	for _, s := range c.items {
		if s.key == key {
			return s, true
		}
	}
	return jsonSpan{}, false
}

// lineIndent is the run of spaces and tabs that starts the line holding
// offset i.
func lineIndent(data []byte, i int) string {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	j := start
	for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
		j++
	}
	return string(data[start:j])
}

// insertion is text to put before data[at].
type insertion struct {
	at   int
	text string
}

// appendItem returns the insertion that adds val (compact JSON), under
// key when the container is an object ("" for an array's element), as the
// container's last member or element, laid out as the container is.
func appendItem(data []byte, c container, key string, val []byte, unit string) insertion {
	prefix := ""
	if key != "" {
		prefix = string(jsonString(key)) + ": "
	}
	multiline := bytes.IndexByte(data[c.open:c.close], '\n') >= 0
	if !multiline {
		var b bytes.Buffer
		json.Compact(&b, val)
		text := prefix + compactSpace(b.String())
		if len(c.items) == 0 {
			return insertion{c.open + 1, text}
		}
		return insertion{c.items[len(c.items)-1].end, ", " + text}
	}
	closeIndent := lineIndent(data, c.close)
	inner := closeIndent + unit
	if len(c.items) > 0 {
		inner = lineIndent(data, c.items[len(c.items)-1].lineStart)
	}
	var b bytes.Buffer
	json.Indent(&b, val, inner, unit)
	text := prefix + b.String()
	if len(c.items) == 0 {
		return insertion{c.open + 1, "\n" + inner + text + "\n" + closeIndent}
	}
	return insertion{c.items[len(c.items)-1].end, ",\n" + inner + text}
}

// compactSpace puts one space after each colon and comma outside strings
// of compact JSON, as a one-line config reads.
func compactSpace(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		b.WriteByte(ch)
		switch {
		case in && ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case ch == '"':
			in = !in
		case !in && (ch == ':' || ch == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// applyInsertions puts the insertions into data; several at one offset
// keep the order they were made in.
func applyInsertions(data []byte, ins []insertion) []byte {
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].at < ins[j].at })
	var out bytes.Buffer
	prev := 0
	for _, in := range ins {
		out.Write(data[prev:in.at])
		out.WriteString(in.text)
		prev = in.at
	}
	out.Write(data[prev:])
	return out.Bytes()
}

// splice adds td's entries to data, a valid JSON object that merge has
// checked, in place. It returns the new bytes.
func (c HookConfig) splice(data []byte, events []EventInstall, unit string) []byte {
	top := readContainer(data, skipSpace(data, 0))
	var ins []insertion
	if c.Layout != MatcherGroups {
		if _, ok := top.member("version"); !ok {
			ins = append(ins, appendItem(data, top, "version", []byte("1"), unit))
		}
	}
	hooksSpan, ok := top.member("hooks")
	if !ok {
		var list []jsonMember
		for i, h := range c.Entries {
			if events[i].Action != "added" {
				continue
			}
			list = append(list, jsonMember{key: h.Event, val: json.RawMessage("[" + string(c.entry(h)) + "]")})
		}
		ins = append(ins, appendItem(data, top, "hooks", encodeObject(list), unit))
		return applyInsertions(data, ins)
	}
	hooks := readContainer(data, hooksSpan.start)
	for i, h := range c.Entries {
		if events[i].Action != "added" {
			continue
		}
		if list, ok := hooks.member(h.Event); ok {
			ins = append(ins, appendItem(data, readContainer(data, list.start), "", c.entry(h), unit))
			continue
		}
		ins = append(ins, appendItem(data, hooks, h.Event, json.RawMessage("["+string(c.entry(h))+"]"), unit))
	}
	return applyInsertions(data, ins)
}
