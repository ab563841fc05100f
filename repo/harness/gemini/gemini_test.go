package gemini

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
		{"BeforeTool", `{"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "td approve x"}}`, harness.PreTool, "td approve x", "", ""},
		{"BeforeTool", `{"session_id": "s", "tool_name": "write_file", "tool_input": {"file_path": "/w/.todos/config.yaml", "content": ""}}`, harness.PreTool, "", "/w/.todos/config.yaml", ""},
		{"BeforeTool", `{"session_id": "s", "tool_name": "read_file", "tool_input": {"file_path": "/w/a"}}`, harness.PreTool, "", "", ""},
		{"AfterTool", `{"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "make"}, "tool_response": {"llmContent": "Command: make\nOutput: boom\nExit Code: 2", "error": null}}`, harness.PostTool, "make", "", "run_shell_command: Exit code 2 — boom"},
		{"AfterTool", `{"session_id": "s", "tool_name": "run_shell_command", "tool_input": {"command": "make"}, "tool_response": {"llmContent": "Command: make\nOutput: ok\nExit Code: 0"}}`, harness.PostTool, "make", "", ""},
		{"AfterTool", `{"session_id": "s", "tool_name": "replace", "tool_input": {"file_path": "a.go"}, "tool_response": {"llmContent": "", "error": "old_string not found"}}`, harness.PostTool, "", "", "replace: old_string not found"},
		{"BeforeAgent", `{"session_id": "s", "prompt": "go"}`, harness.Prompt, "", "", ""},
		{"PreCompress", `{"session_id": "s", "trigger": "auto"}`, harness.PreCompact, "", "", ""},
		{"AfterAgent", `{"session_id": "s"}`, harness.Stop, "", "", ""},
		{"SessionEnd", `{"session_id": "s", "reason": "exit"}`, harness.End, "", "", ""},
		{"Notification", `{"session_id": "s", "notification_type": "ToolPermission", "message": "Allow run_shell_command?", "details": {"tool_name": "run_shell_command"}}`, harness.Ignored, "", "", ""},
	} {
		call, err := ReadCall(strings.NewReader(c.payload), c.event, harness.Conversation{})
		if err != nil {
			t.Fatalf("%s %s: %v", c.event, c.payload, err)
		}
		ev := call.Event
		if c.moment == harness.Ignored && call.Acts() {
			t.Errorf("%s %s: an ignored event opens the repository", c.event, c.payload)
		}
		failure := ""
		if ev.Failure != nil {
			failure = ev.Failure.Message()
		}
		if ev.Moment != c.moment || ev.Tool.Command != c.command || strings.Join(ev.Tool.Paths, ",") != c.paths || failure != c.failure {
			t.Errorf("%s %s: got %+v (failure %q)", c.event, c.payload, ev, failure)
		}
	}
}

func TestRenderIsJSON(t *testing.T) {
	b, _ := Render(&harness.Call{Native: "SessionStart"}, &harness.Outcome{}, "## td: session start\n")
	if !strings.HasPrefix(string(b), "{") || !strings.Contains(string(b), `"additionalContext": "## td: session start\n"`) {
		t.Errorf("context: %s", b)
	}
	b, _ = Render(&harness.Call{Native: "BeforeTool"}, &harness.Outcome{Deny: "no."}, "")
	if !strings.Contains(string(b), `"decision": "deny"`) || !strings.Contains(string(b), `"reason": "td: no."`) {
		t.Errorf("deny: %s", b)
	}
}
