package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// GitHub's issues come as the JSON list gh issue list --json
// number,title,body,state,labels,assignees,comments,createdAt,closedAt
// writes: labels and assignees as objects ({name}, {login}), comments as
// {author: {login}, body, createdAt}. Task lists in a body become todos:
// under an "Acceptance criteria" heading, criteria; under "Todos", steps
// in the phases of its "###" headings; anywhere else, steps.

// SourceGitHub prefixes the imported_from of an issue from GitHub.
const SourceGitHub = "github"

// githubKnown are the fields ParseGitHub maps.
var githubKnown = map[string]bool{
	"number": true, "title": true, "body": true, "state": true, "stateReason": true, "labels": true,
	"assignees": true, "comments": true, "createdAt": true, "closedAt": true, "updatedAt": true,
}

// ParseGitHub reads gh issue list's JSON. path names it in messages.
func ParseGitHub(path string, data []byte) (*Parsed, error) {
	p := &Parsed{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		p.bad(Position{Path: path, Line: 1}, "not the JSON list gh issue list --json writes")
		return p, nil
	}
	for dec.More() {
		start := dec.InputOffset()
		// The element starts after the separator and any space.
		for int(start) < len(data) && strings.ContainsRune(", \t\r\n", rune(data[start])) {
			start++
		}
		at := Position{Path: path, Line: lineAt(start)}
		var v any
		if err := dec.Decode(&v); err != nil {
			p.bad(at, "not JSON: %s", jsonReason(err))
			return p, nil
		}
		m, ok := plain(v).(map[string]any)
		if !ok {
			p.bad(at, "the element is %s, not an issue object", jsonType(plain(v)))
			continue
		}
		rec, err := githubRecord(at, m)
		if err != nil {
			p.bad(at, "%s", err.Error())
			continue
		}
		p.Records = append(p.Records, rec)
	}
	if _, err := dec.Token(); err != nil {
		p.bad(Position{Path: path, Line: lineAt(dec.InputOffset())}, "the list is not closed: %s", jsonReason(err))
	}
	return p, nil
}

func githubRecord(at Position, m map[string]any) (*Record, error) {
	num, ok := m["number"].(int64)
	if !ok || num <= 0 {
		return nil, fmt.Errorf("the issue has no number")
	}
	r := &Record{Source: fmt.Sprintf("%s:%d", SourceGitHub, num), At: at}
	s := map[string]string{}
	var err error
	for _, k := range []string{"title", "body", "state", "stateReason"} {
		if s[k], err = field(m, k); err != nil {
			return nil, err
		}
	}
	if r.Title = oneLine(s["title"]); r.Title == "" {
		return nil, fmt.Errorf("issue %d has no title", num)
	}
	if n := len(s["body"]); n > repo.MaxIssueFileSize {
		// It could not become an issue file, and splitting it would
		// hold it several times over.
		return nil, fmt.Errorf("issue %d's body is %d bytes, over the %d an issue file may hold", num, n, repo.MaxIssueFileSize)
	}
	r.Description, r.Criteria, r.Todos = splitTaskLists(s["body"])
	switch strings.ToUpper(s["state"]) {
	case "", "OPEN":
		r.Status = domain.StatusOpen
	case "CLOSED":
		r.Status, r.Resolution = domain.StatusClosed, domain.ResolutionDone
		switch strings.ToUpper(s["stateReason"]) {
		case "NOT_PLANNED":
			r.Resolution = domain.ResolutionWontfix
		case "DUPLICATE":
			r.Resolution = domain.ResolutionDuplicate
		}
	default:
		return nil, fmt.Errorf("state %q is neither OPEN nor CLOSED", s["state"])
	}
	if s["stateReason"] != "" && r.Status != domain.StatusClosed {
		r.setExtra("stateReason", s["stateReason"])
	}
	labels, err := namedList(m, "labels", "name")
	if err != nil {
		return nil, err
	}
	r.Type, r.Priority = domain.DefaultType, domain.DefaultPriority
	typed := false
	for _, l := range labels {
		if p, ok := priorityLabel(l); ok {
			r.Priority = p
			continue
		}
		if t, ok := githubLabelTypes[strings.ToLower(l)]; ok && !typed {
			r.Type, typed = t, true
			continue
		}
		r.Labels = append(r.Labels, l)
	}
	assignees, err := namedList(m, "assignees", "login")
	if err != nil {
		return nil, err
	}
	if len(assignees) > 0 {
		r.Assignee = assignees[0]
		if len(assignees) > 1 {
			r.setExtra("assignees", anyList(assignees))
		}
	}
	if r.CreatedAt, err = timeField(m, "createdAt"); err != nil {
		return nil, err
	}
	if r.UpdatedAt, err = timeField(m, "updatedAt"); err != nil {
		return nil, err
	}
	closedAt, err := timeField(m, "closedAt")
	if err != nil {
		return nil, err
	}
	if closedAt.Year() > 1 {
		r.Events = append(r.Events, Event{At: closedAt, Kind: "closed", Text: strings.ToLower(s["stateReason"])})
		if r.UpdatedAt.IsZero() {
			r.UpdatedAt = closedAt
		}
	}
	if err := githubComments(r, m["comments"]); err != nil {
		return nil, err
	}
	for k, v := range m {
		if !githubKnown[k] {
			r.setExtra(k, v)
		}
	}
	return r, nil
}

// priorityLabel reads a priority label: P0..P4, or priority: followed by
// P0..P4, 0..4, critical, high, medium or low.
func priorityLabel(l string) (domain.Priority, bool) {
	v := strings.ToLower(strings.TrimSpace(l))
	if len(v) == 2 && v[0] == 'p' {
		return mapPriority(nil, v)
	}
	if rest, ok := strings.CutPrefix(v, "priority:"); ok && strings.TrimSpace(rest) != "" {
		return mapPriority(backlogPriorities, rest)
	}
	return "", false
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// namedList reads a list of objects by one string field of each ({name}
// of a label, {login} of a user); plain strings are taken as they are.
func namedList(m map[string]any, key, name string) ([]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %s, not a list", key, jsonType(v))
	}
	var out []string
	for i, x := range list {
		switch e := x.(type) {
		case string:
			out = append(out, e)
		case map[string]any:
			s, err := field(e, name)
			if err != nil || s == "" {
				return nil, fmt.Errorf("%s[%d] has no %s", key, i, name)
			}
			out = append(out, s)
		default:
			return nil, fmt.Errorf("%s[%d] is %s, not an object", key, i, jsonType(x))
		}
	}
	return out, nil
}

func githubComments(r *Record, v any) error {
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
		body, err := field(c, "body")
		if err != nil {
			return fmt.Errorf("comments[%d]: %v", i, err)
		}
		at, err := timeField(c, "createdAt")
		if err != nil {
			return fmt.Errorf("comments[%d]: %v", i, err)
		}
		author := ""
		if a, ok := c["author"].(map[string]any); ok {
			author, _ = field(a, "login")
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		r.Events = append(r.Events, Event{At: at, Author: author, Kind: EventComment, Text: normalizeEOL(body)})
	}
	return nil
}

// splitTaskLists takes the task lists out of a markdown body: what is
// left is the description; items under an "Acceptance criteria" heading
// are criteria, the rest steps, in the phases of the "###" headings under
// a "Todos" heading. Lines in code blocks are text. A struck-through done
// item is a dropped one; "(blocked)" at the end marks a blocked one, as
// td export --format github writes them.
func splitTaskLists(body string) (desc string, criteria, steps []Item) {
	var keep []string
	// heads are the headings kept in the description, by their index in
	// keep; a heading whose task list moved to the checklist and that is
	// left with nothing under it goes too.
	type head struct {
		at, level int
		lifted    bool
		td        bool // td's own section: not kept, ends the one before
	}
	var heads []head
	section, phase := "", ""
	fence := ""
	lines := strings.Split(normalizeEOL(body), "\n")
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if fence != "" {
			keep = append(keep, line)
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			keep = append(keep, line)
			continue
		}
		if level, text, ok := atxHeading(t); ok {
			lower := strings.ToLower(text)
			switch {
			case level <= 2 && (lower == "acceptance criteria" || lower == "todos"):
				section, phase = lower, ""
				heads = append(heads, head{at: len(keep), level: level, td: true})
				continue
			case level <= 2:
				section, phase = "", text
			case section == "todos":
				phase = text
				continue
			default:
				phase = text
			}
			heads = append(heads, head{at: len(keep), level: level})
			keep = append(keep, line)
			continue
		}
		if strings.HasPrefix(t, "- [") || strings.HasPrefix(t, "* [") || strings.HasPrefix(t, "+ [") {
			if st, text, ok := taskBox(t[2:]); ok && line == strings.TrimLeft(line, " \t") {
				it := Item{Status: st, Text: oneLine(text)}
				if st == domain.TodoCompleted && strings.HasPrefix(it.Text, "~~") && strings.HasSuffix(it.Text, "~~") && len(it.Text) > 4 {
					it.Status, it.Text = domain.TodoAbandoned, it.Text[2:len(it.Text)-2]
				}
				if st == domain.TodoPending {
					if s, ok := strings.CutSuffix(it.Text, " (blocked)"); ok {
						it.Status, it.Text = domain.TodoBlocked, s
					}
				}
				if it.Text == "" {
					continue
				}
				if n := len(heads); n > 0 {
					heads[n-1].lifted = true
				}
				if section == "acceptance criteria" {
					criteria = append(criteria, it)
				} else {
					it.Phase = phase
					steps = append(steps, it)
				}
				continue
			}
		}
		if section != "" && t == "" {
			continue
		}
		keep = append(keep, line)
	}
	// From the last heading up: one that lost its task list, or whose
	// subheadings all went for that, and holds nothing else goes.
	const (
		noneBelow = iota
		allWent
		someKept
	)
	drop := map[int]bool{}
	end := len(keep)
	below := [7]int{} // per level, what became of the headings under the one being read
	for i := len(heads) - 1; i >= 0; i-- {
		h := heads[i]
		if h.td {
			end, below = h.at, [7]int{}
			continue
		}
		blank := true
		for _, l := range keep[h.at+1 : end] {
			if strings.TrimSpace(l) != "" {
				blank = false
				break
			}
		}
		went, kept := false, false
		for lv := h.level + 1; lv <= 6; lv++ {
			went = went || below[lv] == allWent
			kept = kept || below[lv] == someKept
			below[lv] = noneBelow
		}
		if blank && !kept && (h.lifted || went) {
			drop[h.at] = true
			if below[h.level] != someKept {
				below[h.level] = allWent
			}
		} else {
			below[h.level] = someKept
		}
		end = h.at
	}
	if len(drop) > 0 {
		out := keep[:0]
		for i, l := range keep {
			if !drop[i] {
				out = append(out, l)
			}
		}
		keep = out
	}
	return strings.TrimSpace(strings.Join(squeezeBlank(keep), "\n")), criteria, steps
}

// squeezeBlank drops a blank line after a blank line, outside code
// blocks: what taking task lists out of a text leaves behind.
func squeezeBlank(lines []string) []string {
	out := lines[:0]
	fence := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case t == "" && len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "":
			continue
		}
		out = append(out, l)
	}
	return out
}

// atxHeading reads a "#" heading line.
func atxHeading(t string) (int, string, bool) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	return n, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#")), true
}
