package codex

import (
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

func TestReadCall(t *testing.T) {
	for _, c := range []struct {
		event, payload string
		moment         harness.Moment
		command, paths string
		failure        string
	}{
		{"SessionStart", `{"session_id": "s", "source": "resume"}`, harness.Start, "", "", ""},
		{"UserPromptSubmit", `{"session_id": "s", "turn_id": "2", "prompt": "go"}`, harness.Prompt, "", "", ""},
		{"PreToolUse", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "td approve x"}}`, harness.PreTool, "td approve x", "", ""},
		{"PermissionRequest", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls", "description": "d"}}`, harness.PreTool, "ls", "", ""},
		{"PreToolUse", `{"session_id": "s", "tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch\n*** Update File: a.go\n*** End Patch"}}`, harness.PreTool, "", "a.go", ""},
		{"PostToolUse", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "make"}, "tool_response": {"exit_code": 2, "stderr": "boom"}}`, harness.PostTool, "make", "", "Bash: Exit code 2 — boom"},
		{"PostToolUse", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "make"}, "tool_response": {"exit_code": 0}}`, harness.PostTool, "make", "", ""},
		{"PostCompact", `{"session_id": "s", "trigger": "auto"}`, harness.PostCompact, "", "", ""},
		{"Stop", `{"session_id": "s", "stop_hook_active": false}`, harness.Stop, "", "", ""},
		{"PostToolUse", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls /x"}, "tool_response": "ls: cannot access '/x': No such file or directory\n"}`, harness.PostTool, "ls /x", "", "Bash: ls: cannot access '/x': No such file or directory"},
		{"PostToolUse", `{"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "a.go\nb.go\n"}`, harness.PostTool, "ls", "", ""},
		{"SubagentStart", `{"session_id": "s", "agent_id": "a1", "agent_type": "explorer", "turn_id": "t"}`, harness.SubagentStart, "", "", ""},
		{"SubagentStop", `{"session_id": "s", "agent_id": "a1", "agent_type": "explorer", "last_assistant_message": null}`, harness.SubagentStop, "", "", ""},
		{"Interrupt", `{"session_id": "s", "turn_id": "t"}`, harness.Stop, "", "", ""},
		{"SessionEnd", `{"session_id": "s", "reason": "other"}`, harness.End, "", "", ""},
	} {
		call, err := ReadCall(strings.NewReader(c.payload), c.event, harness.Conversation{})
		if err != nil {
			t.Fatalf("%s %s: %v", c.event, c.payload, err)
		}
		ev := call.Event
		failure := ""
		if ev.Failure != nil {
			failure = ev.Failure.Message()
		}
		if ev.Moment != c.moment || ev.Tool.Command != c.command || strings.Join(ev.Tool.Paths, ",") != c.paths || failure != c.failure || !ev.CompactionDropped || ev.Conversation.ID != "s" {
			t.Errorf("%s %s: got %+v (failure %q)", c.event, c.payload, ev, failure)
		}
	}
	c, _ := ReadCall(strings.NewReader(`{"session_id": "s", "model": "gpt-5-codex", "last_assistant_message": "Done.", "agent_id": "a1", "agent_type": "explorer"}`), "Stop", harness.Conversation{})
	if ev := c.Event; ev.Model != "gpt-5-codex" || ev.LastMessage != "Done." || ev.Subagent == nil || ev.Subagent.Type != "explorer" {
		t.Errorf("model, message and subagent: %+v", ev)
	}
	if _, err := ReadCall(strings.NewReader(`{"session_id": "s", "hook_event_name": "Stop"}`), "PreToolUse", harness.Conversation{}); err == nil {
		t.Error("a payload for another event was accepted")
	}
}

func TestRender(t *testing.T) {
	deny := &harness.Outcome{Deny: "no."}
	b, _ := Render(&harness.Call{Native: "PermissionRequest"}, deny, "")
	if !strings.Contains(string(b), `"behavior": "deny"`) || !strings.Contains(string(b), `"message": "td: no."`) {
		t.Errorf("PermissionRequest deny: %s", b)
	}
	b, _ = Render(&harness.Call{Native: "PreToolUse"}, deny, "")
	if !strings.Contains(string(b), `"permissionDecision": "deny"`) {
		t.Errorf("PreToolUse deny: %s", b)
	}
	if b, _ := Render(&harness.Call{Native: "PostToolUse"}, &harness.Outcome{}, ""); b != nil {
		t.Errorf("nothing to say, but printed %s", b)
	}
}
