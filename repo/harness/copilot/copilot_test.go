package copilot

import (
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

func TestReadCall(t *testing.T) {
	for _, c := range []struct {
		event, payload string
		moment         harness.Moment
		source         string
		command, paths string
		failure        string
		conv           string
	}{
		{"sessionStart", `{"timestamp": 1, "cwd": "/w", "source": "new"}`, harness.Start, harness.SourceStartup, "", "", "", "checkout"},
		{"sessionStart", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "source": "resume"}`, harness.Start, harness.SourceResume, "", "", "", "x"},
		{"preToolUse", `{"timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"td approve q\"}"}`, harness.PreTool, "", "td approve q", "", "", "checkout"},
		{"preToolUse", `{"timestamp": 1, "cwd": "/w", "toolName": "edit", "toolArgs": "{\"path\":\".todos/config.yaml\"}"}`, harness.PreTool, "", "", ".todos/config.yaml", "", "checkout"},
		{"preToolUse", `{"timestamp": 1, "cwd": "/w", "toolName": "view", "toolArgs": "{\"path\":\".todos/config.yaml\"}"}`, harness.PreTool, "", "", "", "", "checkout"},
		{"postToolUse", `{"timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"make\"}", "toolResult": {"resultType": "failure", "textResultForLlm": "boom"}}`, harness.PostTool, "", "make", "", "bash: boom", "checkout"},
		{"postToolUse", `{"timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"make\"}", "toolResult": {"resultType": "success", "textResultForLlm": "ok"}}`, harness.PostTool, "", "make", "", "", "checkout"},
		{"errorOccurred", `{"timestamp": 1, "cwd": "/w", "error": {"message": "oops", "name": "Error"}}`, harness.PostTool, "", "", "", "agent: oops", "checkout"},
		{"sessionEnd", `{"timestamp": 1, "cwd": "/w", "reason": "complete"}`, harness.End, "", "", "", "", "checkout"},
		{"postToolUseFailure", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "toolName": "bash", "toolArgs": {"command": "go test ./..."}, "error": "Exit code 1\n--- FAIL: TestX"}`, harness.PostTool, "", "go test ./...", "", "bash: Exit code 1 — --- FAIL: TestX", "x"},
		{"errorOccurred", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "error": "model call failed", "errorContext": "model_call", "recoverable": true}`, harness.PostTool, "", "", "", "agent: model call failed", "x"},
		{"preCompact", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "trigger": "auto"}`, harness.PreCompact, "", "", "", "", "x"},
		{"subagentStart", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "transcriptPath": "/t", "agentName": "explore"}`, harness.SubagentStart, "", "", "", "", "x"},
		{"subagentStop", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "transcriptPath": "/t", "agentName": "explore", "agentId": "a1", "agentType": "explore", "stopReason": "end_turn", "response": "Found it."}`, harness.SubagentStop, "", "", "", "", "x"},
		{"agentStop", `{"sessionId": "x", "timestamp": 1, "cwd": "/w", "transcriptPath": "/t", "stopReason": "end_turn"}`, harness.Stop, "", "", "", "", "x"},
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
		if ev.Moment != c.moment || ev.Source != c.source || ev.Tool.Command != c.command || strings.Join(ev.Tool.Paths, ",") != c.paths || failure != c.failure || ev.Conversation.ID != c.conv {
			t.Errorf("%s %s: got %+v (failure %q)", c.event, c.payload, ev, failure)
		}
	}
	if _, err := ReadCall(strings.NewReader(`{"timestamp": 1}`), "", harness.Conversation{}); err == nil {
		t.Error("a call without an event was accepted: Copilot's payload names none")
	}
}
