package harness

import (
	"strings"
	"testing"

	"github.com/tdproject/td/repo"
)

func TestRecordCommand(t *testing.T) {
	for path, want := range map[string]string{
		".todos/history/td-qkm5oz.jsonl": "td edit, td todo, td comment",
		"sub/.todos/sessions/ses_x.yaml": "td session start",
		".todos/config.yaml":             "td feature set",
		".todos/anchors.md":              "td anchor add",
		".todos/security_events.jsonl":   "audits an exception",
		".gitattributes":                 "td init",
		".githooks/pre-commit":           "td hooks install",
		"docs/governance/policy.md":      "--category meta",
	} {
		if got := recordCommand(path); !strings.Contains(got, want) {
			t.Errorf("recordCommand(%q) = %q, want it to name %q", path, got, want)
		}
	}
}

func TestWritingTool(t *testing.T) {
	for name, want := range map[string]bool{
		"write_file": true, "edit_file": true, "createFile": true, "move_file": true, "apply_patch": true,
		"Write": true, "Delete": true, "edit": true, "create": true, "patch": true, "multiedit": true,
		"read_file": false, "list_directory": false, "search_files": false, "issue": false, "todo": false, "": false,
		"Read": false, "Grep": false, "view": false, "glob": false, "grep": false, "list": false,
	} {
		if got := WritingTool(name); got != want {
			t.Errorf("WritingTool(%q) = %v, want %v", name, got, want)
		}
	}
}

// A harness that announces compactions it may not make (Gemini's
// PreCompress) gets one counted only when its next event says it
// happened; the reminder then waits for the prompt after.
func TestCompactionConfirmedByTheNextEvent(t *testing.T) {
	s := newTestStore(t)
	happened := false
	check := func(mark string) *CompactionCheck {
		return &CompactionCheck{Mark: mark, Happened: func(m string) bool { return m == "t.jsonl\n10" && happened }}
	}
	conv := Conversation{Harness: "gemini", ID: "g1"}
	ev := func(m Moment, mark string) Event {
		return Event{Moment: m, Conversation: conv, CompactionDropped: true, Compaction: check(mark)}
	}
	start, err := Handle(s, Event{Moment: Start, Source: SourceStartup, Conversation: conv, Compaction: check("")})
	if err != nil {
		t.Fatal(err)
	}
	se := start.Session
	compactions := func() int {
		rt, _ := s.Runtime(se.ID)
		return rt.Compactions
	}
	// Six attempts, no compression: nothing counted, no reminder.
	for i := 0; i < 6; i++ {
		for _, e := range []Event{ev(Prompt, ""), ev(PreCompact, "t.jsonl\n10"), ev(Stop, "")} {
			out, err := Handle(s, e)
			if err != nil {
				t.Fatal(err)
			}
			if out.Context != nil {
				t.Fatalf("attempt %d, %s: a reminder without a compression", i, e.Moment)
			}
		}
	}
	if compactions() != 0 {
		t.Fatalf("%d compactions counted without one", compactions())
	}
	// The seventh compresses: counted at the turn's end, the reminder at
	// the next prompt, once.
	Handle(s, ev(PreCompact, "t.jsonl\n10"))
	happened = true
	if _, err := Handle(s, ev(Stop, "")); err != nil {
		t.Fatal(err)
	}
	if compactions() != 1 {
		t.Fatalf("the compression was counted %d times", compactions())
	}
	out, err := Handle(s, ev(Prompt, ""))
	if err != nil || out.Context == nil || out.Context.Kind != "compact" {
		t.Fatalf("the prompt after: %+v %v", out, err)
	}
	if out, _ := Handle(s, ev(Prompt, "")); out.Context != nil {
		t.Fatal("the reminder came twice")
	}
	// A PreCompress with no transcript to mark counts nothing.
	Handle(s, ev(PreCompact, ""))
	Handle(s, ev(Stop, ""))
	if compactions() != 1 {
		t.Fatal("an unmarked PreCompress was counted")
	}
}

// The harness, model and subagent an event names are recorded with the
// session, the model kept when a later event names none.
func TestAttribution(t *testing.T) {
	s := newTestStore(t)
	conv := Conversation{Harness: "codex", ID: "c1"}
	out, err := Handle(s, Event{Moment: Start, Source: SourceStartup, Conversation: conv, Model: "gpt-5-codex"})
	if err != nil {
		t.Fatal(err)
	}
	via := func(id string) repo.Attribution {
		rt, _ := s.Runtime(id)
		return rt.Via
	}
	if v := via(out.Session.ID); v != (repo.Attribution{Harness: "codex", Model: "gpt-5-codex"}) {
		t.Fatalf("after the start: %+v", v)
	}
	Handle(s, Event{Moment: Stop, Conversation: conv})
	if v := via(out.Session.ID); v.Model != "gpt-5-codex" {
		t.Fatalf("a Stop naming no model dropped it: %+v", v)
	}
	sub, err := Handle(s, Event{Moment: SubagentStart, Conversation: conv, Model: "gpt-5-codex-mini", Subagent: &Subagent{ID: "agent-7", Type: "explorer"}})
	if err != nil || sub.Session == nil || sub.Context == nil || !sub.Session.IsSubagent() {
		t.Fatalf("subagent start: %+v %v", sub, err)
	}
	if v := via(sub.Session.ID); v != (repo.Attribution{Harness: "codex", Model: "gpt-5-codex-mini", AgentID: "agent-7", AgentType: "explorer"}) {
		t.Fatalf("the subagent's: %+v", v)
	}
}
