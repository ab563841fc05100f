package cursor

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
		{"beforeShellExecution", `{"conversation_id": "c", "command": "td session use x", "cwd": "/w"}`, harness.PreTool, "td session use x", "", ""},
		{"preToolUse", `{"conversation_id": "c", "tool_name": "Write", "tool_input": {"file_path": "/w/.todos/anchors.md"}}`, harness.PreTool, "", "/w/.todos/anchors.md", ""},
		{"postToolUse", `{"conversation_id": "c", "tool_name": "Shell", "tool_input": {"command": "make"}, "tool_output": "{\"exitCode\":1,\"stderr\":\"boom\"}"}`, harness.PostTool, "make", "", "Shell: Exit code 1 — boom"},
		{"postToolUse", `{"conversation_id": "c", "tool_name": "Shell", "tool_input": {"command": "make"}, "tool_output": "all good"}`, harness.PostTool, "make", "", ""},
		{"postToolUseFailure", `{"conversation_id": "c", "tool_name": "Shell", "tool_input": {"command": "make"}, "error_message": "timed out", "failure_type": "timeout"}`, harness.PostTool, "make", "", "Shell: timed out"},
		{"postToolUseFailure", `{"conversation_id": "c", "tool_name": "Shell", "tool_input": {"command": "make"}, "error_message": "stopped", "is_interrupt": true}`, harness.PostTool, "make", "", ""},
		{"preCompact", `{"conversation_id": "c", "trigger": "auto"}`, harness.PreCompact, "", "", ""},
		// beforeMCPExecution's command is the server's, never judged; its
		// tool_input comes as a JSON string or an object.
		{"beforeMCPExecution", `{"conversation_id": "c", "tool_name": "run_command", "tool_input": "{\"command\": \"td approve x\"}", "command": "npx shell-mcp"}`, harness.PreTool, "td approve x", "", ""},
		{"beforeMCPExecution", `{"conversation_id": "c", "tool_name": "write_file", "tool_input": {"path": "/w/.todos/config.yaml", "content": "x"}, "command": "npx fs-mcp"}`, harness.PreTool, "", "/w/.todos/config.yaml", ""},
		{"beforeMCPExecution", `{"conversation_id": "c", "tool_name": "read_file", "tool_input": {"path": "/w/.todos/config.yaml"}, "url": "http://localhost:3000"}`, harness.PreTool, "", "", ""},
		{"beforeMCPExecution", `{"conversation_id": "c", "tool_name": "issue", "tool_input": "{\"action\": \"show\", \"id\": \"qkm\"}", "command": "td mcp"}`, harness.PreTool, "", "", ""},
		{"afterFileEdit", `{"conversation_id": "c", "file_path": "/w/.todos/anchors.md", "edits": [{"old_string": "a", "new_string": "b"}]}`, harness.Edited, "", "/w/.todos/anchors.md", ""},
		{"beforeSubmitPrompt", `{"conversation_id": "c", "prompt": "go on", "attachments": []}`, harness.Prompt, "", "", ""},
		{"stop", `{"conversation_id": "c", "status": "completed"}`, harness.Stop, "", "", ""},
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
		if ev.Moment != c.moment || ev.Tool.Command != c.command || strings.Join(ev.Tool.Paths, ",") != c.paths || failure != c.failure || ev.Conversation.ID != "c" {
			t.Errorf("%s %s: got %+v (failure %q)", c.event, c.payload, ev, failure)
		}
	}
}

func TestRender(t *testing.T) {
	b, _ := Render(&harness.Call{Native: "beforeShellExecution"}, &harness.Outcome{Deny: "no."}, "")
	if !strings.Contains(string(b), `"permission": "deny"`) || !strings.Contains(string(b), `"agent_message": "td: no."`) {
		t.Errorf("shell deny: %s", b)
	}
	b, _ = Render(&harness.Call{Native: "beforeMCPExecution"}, &harness.Outcome{Deny: "no."}, "")
	if !strings.Contains(string(b), `"permission": "deny"`) {
		t.Errorf("MCP deny: %s", b)
	}
	for _, ev := range []string{"afterFileEdit", "beforeSubmitPrompt"} {
		if b, _ := Render(&harness.Call{Native: ev}, &harness.Outcome{Reported: "x."}, "text"); b != nil {
			t.Errorf("%s takes no answer, but td printed %s", ev, b)
		}
	}
	b, _ = Render(&harness.Call{Native: "preToolUse"}, &harness.Outcome{Deny: "no."}, "")
	if !strings.Contains(string(b), `"decision": "deny"`) {
		t.Errorf("tool deny: %s", b)
	}
	if b, _ := Render(&harness.Call{Native: "stop"}, &harness.Outcome{}, "text"); b != nil {
		t.Errorf("stop takes no context, but td printed %s", b)
	}
}

// TestReadToolsPass: a tool that reads (Read, Grep) names td's records
// freely; only a writing tool's paths are judged.
func TestReadToolsPass(t *testing.T) {
	for tool, judged := range map[string]bool{"Read": false, "Grep": false, "Write": true, "Delete": true, "MCP:write_file": true} {
		payload := `{"conversation_id": "c", "tool_name": "` + tool + `", "tool_input": {"file_path": "/w/.todos/history/td-x.jsonl"}}`
		call, err := ReadCall(strings.NewReader(payload), "preToolUse", harness.Conversation{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(call.Event.Tool.Paths) > 0; got != judged || call.Acts() != judged {
			t.Errorf("%s: paths judged %v, want %v", tool, got, judged)
		}
	}
}
