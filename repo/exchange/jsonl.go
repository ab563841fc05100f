package exchange

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// td's own JSONL export (ExportedIssue a line) comes back whole: the same
// ID when the repository has none of that name, the same fields, the body
// byte for byte, the other frontmatter keys; its ledger comes back as
// imported history, comments as comments.

// SourceTD prefixes the imported_from of an issue from td's own export
// that had none.
const SourceTD = "td"

// ParseJSONL reads td's JSONL export. path names the input in messages.
func ParseJSONL(path string, r io.Reader) (*Parsed, error) {
	p := &Parsed{}
	err := eachLine(r, func(n int, line []byte) {
		at := Position{Path: path, Line: n}
		rec, err := jsonlRecord(at, line)
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

func jsonlRecord(at Position, line []byte) (*Record, error) {
	m, err := decodeObject(line)
	if err != nil {
		return nil, err
	}
	s := map[string]string{}
	for _, k := range []string{"id", "title", "status", "type", "priority", "created_by", "implementer", "assignee", "resolution", "body", "created_at", "updated_at"} {
		if s[k], err = field(m, k); err != nil {
			return nil, err
		}
	}
	id := s["id"]
	if !repo.ValidIssueID(id) {
		return nil, fmt.Errorf("id %q is not a td issue ID such as td-k3x9qa", id)
	}
	r := &Record{ID: id, At: at, Title: s["title"], Assignee: s["assignee"], CreatedBy: s["created_by"],
		Implementer: s["implementer"], Body: s["body"], HasBody: true}
	if r.Status, err = repo.OneOf(s["status"], domain.StatusOpen, domain.Statuses(), false); err != nil {
		return nil, fmt.Errorf("status %v", err)
	}
	if r.Type, err = repo.OneOf(s["type"], domain.DefaultType, domain.IssueTypes(), false); err != nil {
		return nil, fmt.Errorf("type %v", err)
	}
	if r.Priority, err = repo.OneOf(s["priority"], domain.DefaultPriority, domain.Priorities(), false); err != nil {
		return nil, fmt.Errorf("priority %v", err)
	}
	if s["resolution"] != "" {
		if r.Resolution, err = repo.OneOf(s["resolution"], "", domain.Resolutions(), false); err != nil {
			return nil, fmt.Errorf("resolution %v", err)
		}
	}
	if minor, ok := m["minor"].(bool); ok {
		r.Minor = minor
	}
	if r.Labels, err = stringList(m, "labels"); err != nil {
		return nil, err
	}
	if r.CreatedAt, err = timeField(m, "created_at"); err != nil {
		return nil, err
	}
	if r.UpdatedAt, err = timeField(m, "updated_at"); err != nil {
		return nil, err
	}
	if err := jsonlLinks(r, m["links"]); err != nil {
		return nil, err
	}
	if fm, ok := m["frontmatter"].(map[string]any); ok && len(fm) > 0 {
		r.Front = fm
	}
	r.Source = SourceTD + ":" + id
	if src, ok := r.Front[KeyImportedFrom].(string); ok && src != "" {
		// It came from elsewhere before: it keeps that key, so an import
		// of the first source finds it here too.
		r.Source = src
	}
	if err := jsonlLedger(r, m["ledger"]); err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Title) == "" {
		return nil, fmt.Errorf("%s has no title", id)
	}
	return r, nil
}

func jsonlLinks(r *Record, v any) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("links is %s, not a list", jsonType(v))
	}
	for i, x := range list {
		l, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("links[%d] is %s, not an object", i, jsonType(x))
		}
		kind, _ := field(l, "kind")
		to, _ := field(l, "to")
		if !domain.LinkKind(kind).Stored() || !repo.ValidIssueID(to) {
			return fmt.Errorf("links[%d] is not a link td stores (kind %q, to %q)", i, kind, to)
		}
		r.Links = append(r.Links, Link{Kind: domain.LinkKind(kind), To: to})
	}
	return nil
}

// jsonlLedger turns the exported ledger into events: comments stay
// comments (by their author when they were imported before), every other
// entry is history under its action.
func jsonlLedger(r *Record, v any) error {
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("ledger is %s, not a list", jsonType(v))
	}
	for i, x := range list {
		e, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("ledger[%d] is %s, not an object", i, jsonType(x))
		}
		ts, _ := field(e, "ts")
		at, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			return fmt.Errorf("ledger[%d]: ts %q is not an RFC 3339 time", i, ts)
		}
		action, _ := field(e, "action")
		author, _ := field(e, "session")
		if a, _ := field(e, "author"); a != "" {
			author = a
		}
		text, _ := field(e, "text")
		ev := Event{At: at.UTC(), Author: author, Kind: action, Text: text}
		if action == "commented" {
			ev.Kind = EventComment
		} else {
			d := map[string]any{}
			for k, v := range e {
				switch k {
				case "ts", "session", "action", "author", "text", KeyImportedFrom:
				default:
					d[k] = v
				}
			}
			if len(d) > 0 {
				ev.Details = d
			}
		}
		r.Events = append(r.Events, ev)
	}
	sort.SliceStable(r.Events, func(i, j int) bool { return r.Events[i].At.Before(r.Events[j].At) })
	return nil
}
