package exchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
)

// beads' JSONL export (bd export, .beads/issues.jsonl) has one issue a
// line: id, title, description, design, acceptance_criteria, notes,
// status, priority (0..4), issue_type, assignee, labels, dependencies
// ({issue_id, depends_on_id, type, created_at}), comments ({author, text,
// created_at}), created_at, updated_at, closed_at, close_reason, and more
// that td keeps under imported:.

// SourceBeads prefixes the imported_from of an issue from beads.
const SourceBeads = "beads"

// maxLine bounds one line of a JSONL input.
const maxLine = 16 << 20

// beadsKnown are the fields ParseBeads maps; every other field is kept.
var beadsKnown = map[string]bool{
	"id": true, "title": true, "description": true, "design": true, "acceptance_criteria": true,
	"notes": true, "status": true, "priority": true, "issue_type": true, "assignee": true,
	"labels": true, "dependencies": true, "comments": true, "created_at": true, "updated_at": true,
	"closed_at": true, "close_reason": true,
}

// ParseBeads reads beads' JSONL export. path names the input in messages.
func ParseBeads(path string, r io.Reader) (*Parsed, error) {
	p := &Parsed{}
	err := eachLine(r, func(n int, line []byte) {
		at := Position{Path: path, Line: n}
		rec, err := beadsRecord(at, line)
		if err != nil {
			p.bad(at, "%s", err.Error())
			return
		}
		p.Records = append(p.Records, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return p, nil
}

// eachLine calls fn with every non-blank line and its 1-based number.
func eachLine(r io.Reader, fn func(n int, line []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			buf := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(buf) <= maxLine {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
			if len(buf) > maxLine {
				fn(n, nil)
				for err == bufio.ErrBufferFull {
					_, err = br.ReadSlice('\n')
				}
			}
		}
		if len(bytes.TrimSpace(line)) > 0 || line == nil {
			fn(n, line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decodeObject decodes one JSON object with numbers kept exact.
func decodeObject(line []byte) (map[string]any, error) {
	if line == nil {
		return nil, fmt.Errorf("the line is over %d bytes", maxLine)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", jsonReason(err))
	}
	if m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	return plain(m).(map[string]any), nil
}

// jsonReason words a JSON decoding error without Go's type names.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if ok := asSyntax(err, &se); ok {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "the object is cut short"
	}
	if strings.Contains(err.Error(), "cannot unmarshal") {
		return "the line is JSON but not an object"
	}
	return err.Error()
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}

// plain turns json.Numbers into int64 or float64, so that the values
// kept under imported: are written as YAML numbers.
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case map[string]any:
		for k, e := range x {
			x[k] = plain(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	}
	return v
}

// field reads a string field; a field of another type is an error.
func field(m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is %s, not a string", key, jsonType(v))
	}
	return s, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// timeField reads an RFC 3339 time; "" is the zero time.
func timeField(m map[string]any, key string) (time.Time, error) {
	s, err := field(m, key)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an RFC 3339 time such as 2026-11-21T10:04:11Z", key, s)
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("%s %q is outside the years td can write", key, s)
	}
	return t.UTC().Truncate(time.Second), nil
}

func beadsRecord(at Position, line []byte) (*Record, error) {
	m, err := decodeObject(line)
	if err != nil {
		return nil, err
	}
	id, err := field(m, "id")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Errorf("the issue has no id")
	}
	r := &Record{Source: SourceBeads + ":" + id, At: at}
	str := map[string]string{}
	for _, k := range []string{"title", "description", "design", "acceptance_criteria", "notes", "status", "issue_type", "assignee", "close_reason"} {
		if str[k], err = field(m, k); err != nil {
			return nil, err
		}
	}
	if r.Title = oneLine(str["title"]); r.Title == "" {
		return nil, fmt.Errorf("%s has no title", id)
	}
	r.Description = str["description"]
	r.Sections = []Section{{Title: "Design", Text: str["design"]}, {Title: "Notes", Text: str["notes"]}}
	r.Criteria = criteriaFromText(str["acceptance_criteria"])
	r.setStatus(beadsStatuses, "status", str["status"])
	r.setType(beadsTypes, "issue_type", str["issue_type"])
	r.Priority = domain.DefaultPriority
	if v, ok := m["priority"]; ok && v != nil {
		p, good := mapPriority(nil, fmt.Sprint(v))
		r.Priority = p
		if !good {
			r.setExtra("priority", v)
		}
	}
	r.Assignee = str["assignee"]
	if r.Labels, err = stringList(m, "labels"); err != nil {
		return nil, err
	}
	if r.CreatedAt, err = timeField(m, "created_at"); err != nil {
		return nil, err
	}
	if r.UpdatedAt, err = timeField(m, "updated_at"); err != nil {
		return nil, err
	}
	closedAt, err := timeField(m, "closed_at")
	if err != nil {
		return nil, err
	}
	if !closedAt.IsZero() || str["close_reason"] != "" {
		r.Events = append(r.Events, Event{At: closedAt, Kind: "closed", Text: str["close_reason"]})
	}
	if err := beadsDependencies(r, id, m["dependencies"]); err != nil {
		return nil, err
	}
	if err := beadsComments(r, m["comments"]); err != nil {
		return nil, err
	}
	if dot := strings.LastIndexByte(id, '.'); dot > 0 && !hasLink(r, domain.ChildOf) {
		// bd-a1b2.1 is a child of bd-a1b2 by its name alone.
		r.Links = append(r.Links, Link{Kind: domain.ChildOf, To: SourceBeads + ":" + id[:dot]})
	}
	for k, v := range m {
		if !beadsKnown[k] {
			r.setExtra(k, v)
		}
	}
	return r, nil
}

func hasLink(r *Record, k domain.LinkKind) bool {
	for _, l := range r.Links {
		if l.Kind == k {
			return true
		}
	}
	return false
}

// stringList reads a list of strings.
func stringList(m map[string]any, key string) ([]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not a list", key, jsonType(v))
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is %s, not a string", key, i, jsonType(x))
		}
		out = append(out, s)
	}
	return out, nil
}

func beadsDependencies(r *Record, id string, v any) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("dependencies is %s, not a list", jsonType(v))
	}
	var unknown []any
	for i, x := range list {
		d, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("dependencies[%d] is %s, not an object", i, jsonType(x))
		}
		to, err := field(d, "depends_on_id")
		if err != nil || to == "" {
			return fmt.Errorf("dependencies[%d] has no depends_on_id", i)
		}
		from, _ := field(d, "issue_id")
		if from != "" && from != id {
			// Listed under another issue: beads writes each dependency
			// under its own issue, so this one is kept, not guessed at.
			unknown = append(unknown, d)
			continue
		}
		typ, _ := field(d, "type")
		kind, ok := beadsLinks[typ]
		if !ok {
			kind = domain.RelatesTo
			unknown = append(unknown, d)
		}
		r.Links = append(r.Links, Link{Kind: kind, To: SourceBeads + ":" + to})
	}
	if len(unknown) > 0 {
		r.setExtra("dependencies", unknown)
	}
	return nil
}

func beadsComments(r *Record, v any) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("comments is %s, not a list", jsonType(v))
	}
	for i, x := range list {
		c, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("comments[%d] is %s, not an object", i, jsonType(x))
		}
		text, err := field(c, "text")
		if err != nil {
			return fmt.Errorf("comments[%d]: %v", i, err)
		}
		author, err := field(c, "author")
		if err != nil {
			return fmt.Errorf("comments[%d]: %v", i, err)
		}
		at, err := timeField(c, "created_at")
		if err != nil {
			return fmt.Errorf("comments[%d]: %v", i, err)
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		r.Events = append(r.Events, Event{At: at, Author: author, Kind: EventComment, Text: text})
	}
	return nil
}

// criteriaFromText reads acceptance criteria written as text: each list
// item ("- [x] ...", "- ...", "1. ...") is one criterion, checked when
// its box is; a text with no list has one criterion per line.
func criteriaFromText(s string) []Item {
	var items []Item
	for _, line := range strings.Split(normalizeEOL(s), "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		it := Item{Status: domain.TodoPending}
		t = trimListMarker(t)
		if box, rest, ok := taskBox(t); ok {
			it.Status, t = box, rest
		}
		if it.Text = oneLine(t); it.Text != "" {
			items = append(items, it)
		}
	}
	return items
}

// trimListMarker removes "- ", "* ", "+ " or "1. " from the start of t.
func trimListMarker(t string) string {
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && t[1] == ' ' {
		return strings.TrimSpace(t[2:])
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+2:])
	}
	return t
}

// taskBox reads a task list box at the start of t: "[ ]", "[x]", ...
func taskBox(t string) (domain.TodoStatus, string, bool) {
	if len(t) < 3 || t[0] != '[' || t[2] != ']' {
		return "", t, false
	}
	var st domain.TodoStatus
	switch t[1] {
	case ' ':
		st = domain.TodoPending
	case 'x', 'X':
		st = domain.TodoCompleted
	case '/':
		st = domain.TodoInProgress
	case '-', '~':
		st = domain.TodoAbandoned
	case '!':
		st = domain.TodoBlocked
	default:
		return "", t, false
	}
	return st, strings.TrimSpace(t[3:]), true
}
