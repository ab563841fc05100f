package exchange

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tdproject/td/markdown"
)

// checkParsed holds for every reader: bad rows name a line inside the
// input, records carry their source's prefix and td's words, and every
// record renders a body td reads back with the criteria and todos the
// record has.
func checkParsed(t *testing.T, p *Parsed, prefix string, lines int) {
	t.Helper()
	for _, b := range p.Bad {
		if b.At.Line < 0 || b.At.Line > lines || b.Reason == "" {
			t.Fatalf("bad row %q outside the input's %d lines or without a reason", b, lines)
		}
	}
	for _, r := range p.Records {
		if !strings.HasPrefix(r.Source, prefix+":") {
			t.Fatalf("source %q lacks the prefix %s:", r.Source, prefix)
		}
		if r.Title == "" || strings.ContainsAny(r.Title, "\r\n") {
			t.Fatalf("title %q is empty or not one line", r.Title)
		}
		if (r.Status != "" && !r.Status.Valid()) || (r.Type != "" && !r.Type.Valid()) || (r.Priority != "" && !r.Priority.Valid()) {
			t.Fatalf("record has words td does not know: %q %q %q", r.Status, r.Type, r.Priority)
		}
		body := []byte(renderBody(r))
		if markdown.CheckBody(body, 1) != nil || !checklistReadsBack(r, body) {
			continue // refused as a bad row by Apply
		}
		if strings.Count(string(body), "- [") < len(r.Criteria)+len(r.Todos) {
			t.Fatalf("the rendered body lost items:\n%s", body)
		}
	}
}

func lineCount(data []byte) int { return bytes.Count(data, []byte("\n")) + 1 }

func FuzzBeadsLine(f *testing.F) {
	f.Add([]byte(`{"id":"bd-1","title":"A","status":"closed","priority":1,"issue_type":"bug","labels":["x"],"acceptance_criteria":"- [x] one\n- two","comments":[{"author":"a","text":"t","created_at":"2026-01-01T00:00:00Z"}],"dependencies":[{"issue_id":"bd-1","depends_on_id":"bd-2","type":"blocks"}]}`))
	f.Add([]byte("{\"id\":\"bd-2.1\",\"title\":\"B\",\"extra\":{\"k\":[1,2.5,null]}}\n\n{broken"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseBeads("in.jsonl", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		checkParsed(t, p, SourceBeads, lineCount(data))
	})
}

func FuzzBacklogTask(f *testing.F) {
	f.Add([]byte("---\nid: TASK-1\ntitle: A\nstatus: In Progress\nassignee:\n  - '@a'\ndependencies: [TASK-2]\npriority: high\n---\n\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nText\n<!-- SECTION:DESCRIPTION:END -->\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [x] #1 one\n- [ ] #2 two\n<!-- AC:END -->\n"))
	f.Add([]byte("---\nid: task-2\ntitle: B\ncreated_date: '2025-06-01'\n---\n## Definition of Done\n- [ ] x\n```\n## not a heading\n```\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, bad := ParseBacklogTask("t.md", "", data)
		p := &Parsed{}
		if bad != nil {
			p.Bad = append(p.Bad, *bad)
		} else {
			p.Records = append(p.Records, r)
		}
		checkParsed(t, p, SourceBacklog, lineCount(data))
	})
}

func FuzzGitHubJSON(f *testing.F) {
	f.Add([]byte(`[{"number":1,"title":"A","body":"Text\n\n## Acceptance criteria\n- [x] one\n\n- [ ] step\n","state":"CLOSED","stateReason":"NOT_PLANNED","labels":[{"name":"bug"},{"name":"P0"}],"assignees":[{"login":"a"}],"comments":[{"author":{"login":"b"},"body":"c","createdAt":"2026-01-01T00:00:00Z"}],"createdAt":"2026-01-01T00:00:00Z","closedAt":null}]`))
	f.Add([]byte("[\n {\"number\": 2, \"title\": \"B\"},\n \"x\",\n {\"number\": 3}\n]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseGitHub("in.json", data)
		if err != nil {
			t.Fatal(err)
		}
		checkParsed(t, p, SourceGitHub, lineCount(data))
	})
}

func FuzzMarcusTD(f *testing.F) {
	for _, name := range []string{"issues.db", "bad_rows.db"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseMarcusTD("issues.db", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "issues.db: ") {
				t.Fatalf("the error %q does not start with the path", err)
			}
			return
		}
		checkParsed(t, p, SourceMarcusTD, 0)
	})
}
