package exchange

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// A Backlog.md project keeps one markdown file a task under backlog/:
// tasks/ (the board), drafts/, completed/ and archive/tasks/. A task's
// frontmatter has id, title, status, assignee (a list), labels,
// dependencies, parent_task_id, priority, created_date and updated_date
// ("2026-11-24 08:47"); its body has "## Description", "## Acceptance
// Criteria" (items "- [ ] #1 text" between <!-- AC:BEGIN --> and
// <!-- AC:END -->), "## Definition of Done", "## Implementation Plan" and
// "## Implementation Notes", the newer files with SECTION markers.

// SourceBacklog prefixes the imported_from of an issue from Backlog.md.
const SourceBacklog = "backlog"

// backlogFolders are the folders of a backlog that hold tasks, and what
// each says of its tasks.
var backlogFolders = []struct {
	dir  string
	kind string // "", "draft", "completed" or "archived"
}{
	{"tasks", ""}, {"drafts", "draft"}, {"completed", "completed"}, {"archive/tasks", "archived"},
}

// backlogKnown are the frontmatter keys ParseBacklogTask maps.
var backlogKnown = map[string]bool{
	"id": true, "title": true, "status": true, "assignee": true, "labels": true, "dependencies": true,
	"parent_task_id": true, "parent": true, "priority": true, "type": true, "created_date": true, "updated_date": true,
}

// maxTaskFile bounds a task file td reads.
const maxTaskFile = 4 << 20

// ParseBacklog reads the tasks of a Backlog.md folder. dir is where it
// is; shown is how messages name it. A folder holding a backlog/ folder
// is taken for the project, and its backlog/ read.
func ParseBacklog(dir, shown string) (*Parsed, error) {
	if fi, err := os.Stat(filepath.Join(dir, "backlog")); err == nil && fi.IsDir() && !isBacklog(dir) {
		dir, shown = filepath.Join(dir, "backlog"), path.Join(shown, "backlog")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, unwrapPath(err))
	}
	if !fi.IsDir() {
		return nil, repo.Errorf(repo.CodeInvalid, "%s is not a folder; td import backlog reads a Backlog.md folder (the one holding tasks/)", shown)
	}
	if !isBacklog(dir) {
		return nil, repo.Errorf(repo.CodeInvalid, "%s holds no tasks/, drafts/, completed/ or archive/tasks/ folder, so it is not a Backlog.md folder", shown)
	}
	p := &Parsed{}
	for _, f := range backlogFolders {
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(f.dir)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s/%s: %w", shown, f.dir, unwrapPath(err))
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".md") || !e.Type().IsRegular() {
				continue
			}
			name := path.Join(shown, f.dir, e.Name())
			data, err := readTaskFile(filepath.Join(dir, filepath.FromSlash(f.dir), e.Name()))
			if errors.Is(err, errTooLarge) {
				p.bad(Position{Path: name}, "the file is over %d bytes", maxTaskFile)
				continue
			}
			if err != nil {
				p.bad(Position{Path: name}, "%v", unwrapPath(err))
				continue
			}
			rec, bad := ParseBacklogTask(name, f.kind, data)
			if bad != nil {
				p.Bad = append(p.Bad, *bad)
				continue
			}
			p.Records = append(p.Records, rec)
		}
	}
	return p, nil
}

// errTooLarge is readTaskFile's error for a file over maxTaskFile.
var errTooLarge = errors.New("too large")

// readTaskFile reads a task file of at most maxTaskFile bytes: its size
// is checked before anything is read (a sparse file of gigabytes costs
// nothing to make), and the read stops past the limit should it grow.
func readTaskFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() > maxTaskFile {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTaskFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTaskFile {
		return nil, errTooLarge
	}
	return data, nil
}

func isBacklog(dir string) bool {
	for _, f := range backlogFolders {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.dir))); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseBacklogTask reads one task file; kind is what its folder says of
// it ("", "draft", "completed" or "archived").
func ParseBacklogTask(name, kind string, data []byte) (*Record, *BadInput) {
	bad := func(line int, format string, args ...any) (*Record, *BadInput) {
		return nil, &BadInput{At: Position{Path: name, Line: line}, Reason: fmt.Sprintf(format, args...)}
	}
	doc, err := markdown.Parse(data)
	if err != nil {
		var me *markdown.Error
		if errors.As(err, &me) {
			return bad(me.Line, "%s", me.Msg)
		}
		return bad(1, "%v", err)
	}
	var m map[string]any
	if err := doc.Front.Decode(&m); err != nil {
		var me *markdown.Error
		if errors.As(err, &me) {
			return bad(me.Line, "%s", me.Msg)
		}
		return bad(1, "%v", err)
	}
	m = jsonable(m).(map[string]any)
	line := func(k string) int { return max(doc.Front.Line(k), 1) }
	id := scalar(m["id"])
	if id == "" {
		return bad(1, "the task has no id")
	}
	r := &Record{Source: backlogKey(id), At: Position{Path: name, Line: 1}}
	if r.Title = oneLine(scalar(m["title"])); r.Title == "" {
		return bad(line("title"), "%s has no title", id)
	}
	r.setStatus(backlogStatuses, "status", scalar(m["status"]))
	switch kind {
	case "draft":
		r.Status, r.Resolution = domain.StatusOpen, ""
		r.setExtra("draft", true)
	case "completed":
		r.Status, r.Resolution = domain.StatusClosed, domain.ResolutionDone
	case "archived":
		r.Status, r.Resolution = domain.StatusClosed, domain.ResolutionWontfix
		r.setExtra("archived", true)
	}
	if p, ok := mapPriority(backlogPriorities, scalar(m["priority"])); ok {
		r.Priority = p
	} else {
		r.Priority = p
		r.setExtra("priority", m["priority"])
	}
	t, ok := mapType(backlogTypes, scalar(m["type"]))
	r.Type = t
	if !ok || (scalar(m["type"]) != "" && !strings.EqualFold(scalar(m["type"]), string(t))) {
		r.setExtra("type", m["type"])
	}
	assignees := strList(m["assignee"])
	for i := range assignees {
		assignees[i] = strings.TrimPrefix(assignees[i], "@")
	}
	if len(assignees) > 0 {
		r.Assignee = assignees[0]
		if len(assignees) > 1 {
			r.setExtra("assignee", anyList(assignees))
		}
	}
	r.Labels = strList(m["labels"])
	if r.CreatedAt, err = backlogDate(m["created_date"]); err != nil {
		return bad(line("created_date"), "created_date %v", err)
	}
	if r.UpdatedAt, err = backlogDate(m["updated_date"]); err != nil {
		return bad(line("updated_date"), "updated_date %v", err)
	}
	for _, d := range strList(m["dependencies"]) {
		r.Links = append(r.Links, Link{Kind: domain.BlockedBy, To: backlogKey(d)})
	}
	parent := scalar(m["parent_task_id"])
	if parent == "" {
		parent = scalar(m["parent"])
	}
	if parent == "" {
		if dot := strings.LastIndexByte(id, '.'); dot > 0 {
			parent = id[:dot]
		}
	}
	if parent != "" {
		r.Links = append(r.Links, Link{Kind: domain.ChildOf, To: backlogKey(parent)})
	}
	for k, v := range m {
		if !backlogKnown[k] {
			r.setExtra(k, v)
		}
	}
	backlogBody(r, string(doc.Body))
	return r, nil
}

// backlogKey is a task's source key: IDs are matched without case, as
// Backlog.md wrote task-1 before it wrote TASK-1.
func backlogKey(id string) string {
	return SourceBacklog + ":" + strings.ToLower(strings.TrimSpace(id))
}

// scalar is a frontmatter value as text ("" for none or a collection).
func scalar(v any) string {
	switch x := v.(type) {
	case nil, map[string]any, []any:
		return ""
	case string:
		return strings.TrimSpace(x)
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04")
	default:
		return fmt.Sprint(x)
	}
}

// strList is a frontmatter list of strings; a single value is a list of
// one.
func strList(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s := scalar(e); s != "" {
				out = append(out, s)
			}
		}
	default:
		if s := scalar(v); s != "" {
			for _, part := range strings.Split(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
		}
	}
	return out
}

// backlogDate reads "2026-11-24 08:47", "2026-11-24" or an RFC 3339 time,
// in UTC.
func backlogDate(v any) (time.Time, error) {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Truncate(time.Second), nil
	}
	s := scalar(v)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02", time.RFC3339, "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date such as 2026-11-24 08:47", s)
}

// backlogBody reads a task's sections: the description, the acceptance
// criteria, the definition of done (steps in a phase of that name), and
// every other section, kept under its heading.
func backlogBody(r *Record, body string) {
	var desc []string
	for _, sec := range splitSections(normalizeEOL(body)) {
		title := strings.ToLower(sec.Title)
		text := stripMarkers(sec.Text)
		switch title {
		case "", "description":
			if t := strings.TrimSpace(text); t != "" {
				desc = append(desc, t)
			}
		case "acceptance criteria":
			r.Criteria = append(r.Criteria, checklistItems(text, "")...)
		case "definition of done":
			r.Todos = append(r.Todos, checklistItems(text, sec.Title)...)
		default:
			r.Sections = append(r.Sections, Section{Title: sec.Title, Text: text})
		}
	}
	r.Description = strings.Join(desc, "\n\n")
}

// splitSections cuts a body at its "##" headings (outside code blocks).
func splitSections(body string) []Section {
	var out []Section
	cur := Section{}
	var text []string
	fence := ""
	flush := func() {
		cur.Text = strings.Join(text, "\n")
		if cur.Title != "" || strings.TrimSpace(cur.Text) != "" {
			out = append(out, cur)
		}
		text = nil
	}
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		} else if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
		} else if level, title, ok := atxHeading(t); ok && level <= 2 && line == strings.TrimLeft(line, " ") {
			flush()
			cur = Section{Title: title}
			continue
		}
		text = append(text, line)
	}
	flush()
	return out
}

// stripMarkers removes Backlog.md's HTML comment markers
// (<!-- SECTION:PLAN:BEGIN -->, <!-- AC:END -->, ...) on lines of their own.
func stripMarkers(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if len(t) >= len("<!---->") && strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->") {
			inner := strings.TrimSpace(t[4 : len(t)-3])
			if strings.HasSuffix(inner, ":BEGIN") || strings.HasSuffix(inner, ":END") {
				continue
			}
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// checklistItems reads "- [x] #1 text" lines; the number is Backlog.md's
// index, not the text.
func checklistItems(text, phase string) []Item {
	var out []Item
	for _, line := range strings.Split(text, "\n") {
		t := trimListMarker(strings.TrimSpace(line))
		st, rest, ok := taskBox(t)
		if !ok {
			continue
		}
		if len(rest) > 1 && rest[0] == '#' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				i++
			}
			if i > 1 && (i == len(rest) || rest[i] == ' ') {
				rest = strings.TrimSpace(rest[i:])
			}
		}
		if rest = oneLine(rest); rest != "" {
			out = append(out, Item{Text: rest, Status: st, Phase: phase})
		}
	}
	return out
}
