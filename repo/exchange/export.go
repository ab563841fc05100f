package exchange

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
)

// ExportedIssue is one line of td's JSONL export: every frontmatter field,
// the other frontmatter keys, the body whole, the todos and the ledger.
type ExportedIssue struct {
	ID          string            `json:"id"`
	Title       string            `json:"title"`
	Status      domain.Status     `json:"status"`
	Type        domain.IssueType  `json:"type"`
	Priority    domain.Priority   `json:"priority"`
	Minor       bool              `json:"minor"`
	Labels      []string          `json:"labels"`
	CreatedBy   string            `json:"created_by"`
	Implementer string            `json:"implementer"`
	Assignee    string            `json:"assignee"`
	Resolution  domain.Resolution `json:"resolution"`
	Links       []domain.Link     `json:"links"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	// Frontmatter holds the keys td does not know, as they decode.
	Frontmatter map[string]any `json:"frontmatter"`
	Description string         `json:"description"`
	// Body is the markdown after the frontmatter, byte for byte.
	Body  string         `json:"body"`
	Todos []ExportedTodo `json:"todos"`
	// Ledger holds the ledger's entries as the file has them.
	Ledger []json.RawMessage `json:"ledger"`
}

// ExportedTodo is one todo of an exported issue.
type ExportedTodo struct {
	Kind   domain.TodoKind   `json:"kind"`
	Status domain.TodoStatus `json:"status"`
	Text   string            `json:"text"`
	Phase  string            `json:"phase"`
	Origin domain.AgentPath  `json:"origin"`
	Notes  []string          `json:"notes"`
}

// knownKeys are the frontmatter keys ExportedIssue has fields for.
var knownKeys = map[string]bool{
	"id": true, "title": true, "status": true, "type": true, "priority": true, "minor": true,
	"labels": true, "created_by": true, "implementer": true, "assignee": true, "resolution": true,
	"links": true, "created_at": true, "updated_at": true,
}

// GitHubIssue is one issue for GitHub's REST API: Create is the body of
// "Create an issue" (POST /repos/{owner}/{repo}/issues, operation
// issues/create), holding only the keys that operation takes; Update,
// for a closed issue, is the body of "Update an issue" (PATCH
// /repos/{owner}/{repo}/issues/{issue_number}) that closes it once it
// exists, since an issue is always created open. TD names the td issue it
// came from, beside the two bodies and in neither.
type GitHubIssue struct {
	TD     string        `json:"td"`
	Create GitHubCreate  `json:"create"`
	Update *GitHubUpdate `json:"update,omitempty"`
}

// GitHubCreate is the body of issues/create.
type GitHubCreate struct {
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Labels    []string `json:"labels"`
	Assignees []string `json:"assignees"`
	// Type is the name of the issue type ("Bug", "Feature", "Task"): a
	// repository whose organisation has no such type drops it.
	Type string `json:"type,omitempty"`
}

// GitHubUpdate is the body of issues/update that gives a created issue
// td's state.
type GitHubUpdate struct {
	State       string `json:"state"`
	StateReason string `json:"state_reason,omitempty"`
}

// githubType is a td type as GitHub's issue types name it.
func githubType(t domain.IssueType) string {
	if t == "" {
		return ""
	}
	return strings.ToUpper(string(t[:1])) + string(t[1:])
}

// exportBatch is how many issues ExportEach reads ahead of fn.
var exportBatch = 512

// ExportEach reads every issue with its ledger, in the order of their
// IDs, and hands each to fn; the files of a batch are read in parallel
// while nothing else is held, so that an export of 100,000 issues keeps
// a batch in memory rather than the repository (it took 1.1 GB). Files
// td cannot read are returned, not handed to fn. An error from fn stops
// the export and is returned.
func ExportEach(s *repo.Store, fn func(*ExportedIssue) error) ([]error, error) {
	ids, err := s.IssueIDs()
	if err != nil {
		return nil, err
	}
	var problems []error
	out := make([]*ExportedIssue, min(len(ids), exportBatch))
	errs := make([]error, len(out))
	for start := 0; start < len(ids); start += exportBatch {
		batch := ids[start:min(start+exportBatch, len(ids))]
		repo.ForEach(len(batch), repo.IOWorkers(), 32, func(i int) {
			out[i], errs[i] = exportIssue(s, batch[i])
		})
		for i := range batch {
			if errs[i] != nil {
				problems = append(problems, errs[i])
				continue
			}
			if err := fn(out[i]); err != nil {
				return problems, err
			}
			out[i] = nil
		}
	}
	return problems, nil
}

func exportIssue(s *repo.Store, id string) (*ExportedIssue, error) {
	is, err := s.ReadIssueFile(id)
	if err != nil {
		return nil, err
	}
	e := &ExportedIssue{ID: is.ID, Title: is.Title, Status: is.Status, Type: is.Type, Priority: is.Priority,
		Minor: is.Minor, Labels: repo.NonNil(is.Labels), CreatedBy: is.CreatedBy, Implementer: is.Implementer,
		Assignee: is.Assignee, Resolution: is.Resolution, Links: nonNilLinks(is.Links),
		CreatedAt: timeText(is.CreatedAt), UpdatedAt: timeText(is.UpdatedAt),
		Frontmatter: map[string]any{}, Description: is.Description(), Body: is.Body(),
		Todos: []ExportedTodo{}, Ledger: []json.RawMessage{}}
	for _, k := range is.Doc.Front.Keys() {
		if knownKeys[k] {
			continue
		}
		var v any
		if err := is.Doc.Front.Node(k).Decode(&v); err != nil {
			return nil, &repo.ParseError{Path: is.Path, Line: is.Doc.Front.Line(k), Msg: fmt.Sprintf("%s cannot be exported: %v", k, err)}
		}
		e.Frontmatter[k] = jsonable(v)
	}
	for _, it := range is.Todos() {
		e.Todos = append(e.Todos, ExportedTodo{Kind: it.Kind, Status: it.Status, Text: it.Text, Phase: it.Phase,
			Origin: it.Origin, Notes: repo.NonNil(it.Notes)})
	}
	data, err := os.ReadFile(s.Path(repo.HistoryDir, id+".jsonl"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, s.FileError(s.Path(repo.HistoryDir, id+".jsonl"), err)
	}
	// updated_at is the ledger's last entry when that is later than the
	// file's time, as every view of td says it (Store.FillUpdated).
	updated := is.UpdatedAt
	seen := map[string]bool{}
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		line = bytes.TrimSpace(line)
		if seen[string(line)] {
			continue // the same entry arrived twice: it is exported once
		}
		seen[string(line)] = true
		obj, err := decodeObject(line)
		if err != nil {
			return nil, &repo.ParseError{Path: repo.TodosDir + "/" + repo.HistoryDir + "/" + id + ".jsonl", Line: n + 1, Msg: err.Error()}
		}
		if ts, ok := obj["ts"].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil && t.After(updated) {
				updated = t
			}
		}
		e.Ledger = append(e.Ledger, json.RawMessage(line))
	}
	e.UpdatedAt = timeText(updated)
	return e, nil
}

// jsonable turns what YAML decodes (maps with any keys) into what JSON
// can encode.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	}
	return v
}

// GitHubForm turns an exported issue into what GitHub's REST API takes:
// the create body, its body without td's checklist sections, then its criteria and todos as
// task lists (GitHub knows only done and not done: a dropped todo is done
// and struck through, a blocked one says so).
func GitHubForm(e *ExportedIssue) GitHubIssue {
	body := strings.TrimRight(withoutChecklist(e.Body), "\n")
	var b strings.Builder
	b.WriteString(strings.TrimLeft(body, "\n"))
	write := func(title string, kind domain.TodoKind) {
		first := true
		phase := ""
		for _, t := range e.Todos {
			if t.Kind != kind {
				continue
			}
			if first {
				if b.Len() > 0 {
					text := strings.TrimRight(b.String(), "\n")
					b.Reset()
					b.WriteString(text + "\n\n")
				}
				b.WriteString("## " + title + "\n")
				first = false
			}
			if t.Phase != phase {
				b.WriteString("\n### " + t.Phase + "\n\n")
				phase = t.Phase
			} else if phase == "" && strings.HasSuffix(b.String(), title+"\n") {
				b.WriteString("\n")
			}
			b.WriteString(taskLine(t) + "\n")
		}
	}
	write("Acceptance criteria", domain.KindCriterion)
	write("Todos", domain.KindStep)
	var update *GitHubUpdate
	if e.Status == domain.StatusClosed {
		update = &GitHubUpdate{State: "closed", StateReason: "completed"}
		switch e.Resolution {
		case domain.ResolutionWontfix:
			update.StateReason = "not_planned"
		case domain.ResolutionDuplicate:
			update.StateReason = "duplicate"
		}
	}
	assignees := []string{}
	if a := e.Assignee; a != "" && !strings.HasPrefix(a, domain.AssigneeSessionPrefix) {
		assignees = append(assignees, a)
	}
	labels := append([]string{}, e.Labels...)
	labels = append(labels, string(e.Priority))
	text := strings.TrimRight(b.String(), "\n")
	if text != "" {
		text += "\n"
	}
	return GitHubIssue{TD: e.ID, Create: GitHubCreate{Title: e.Title, Body: text, Labels: labels,
		Assignees: assignees, Type: githubType(e.Type)}, Update: update}
}

func taskLine(t ExportedTodo) string {
	switch t.Status {
	case domain.TodoCompleted:
		return "- [x] " + t.Text
	case domain.TodoAbandoned:
		return "- [x] ~~" + t.Text + "~~"
	case domain.TodoBlocked:
		return "- [ ] " + t.Text + " (blocked)"
	}
	return "- [ ] " + t.Text
}

// withoutChecklist is the body less td's sections: acceptance criteria,
// todos and anchors, each from its heading to the next heading of its
// level or above.
func withoutChecklist(body string) string {
	b := []byte(strings.ReplaceAll(body, "\r\n", "\n"))
	hs := markdown.Headings(b)
	var out []byte
	at := 0
	for i := 0; i < len(hs); i++ {
		h := hs[i]
		t := strings.ToLower(strings.TrimSpace(h.Text))
		if h.Level != 2 || (t != "acceptance criteria" && t != "todos" && t != strings.ToLower(markdown.AnchorsHeading)) {
			continue
		}
		end := len(b)
		for j := i + 1; j < len(hs); j++ {
			if hs[j].Level <= 2 {
				end = hs[j].Start
				i = j - 1
				break
			}
		}
		out = append(out, b[at:h.Start]...)
		at = end
		if end == len(b) {
			break
		}
	}
	out = append(out, b[at:]...)
	return string(out)
}
