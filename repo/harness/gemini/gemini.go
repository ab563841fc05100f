// Package gemini is td's adapter for the Gemini CLI: the hook payload it
// sends, the mapping of its events onto td's session lifecycle, its JSON
// answers (Gemini reads only JSON on a hook's stdout), and td's entries in
// the project's .gemini/settings.json.
//
//	SessionStart   start (startup), resume or restart (clear) the session;
//	               the context goes back as additionalContext
//	BeforeAgent    the claim is renewed; after a compression, the reminder
//	               (PreCompress is advisory: what it prints is not added)
//	BeforeTool     deny an escalating td command (run_shell_command) or a
//	               project agent's write_file or replace of td's records
//	AfterTool      a response with an error is a session error
//	PreCompress    Gemini fires it at every compression attempt, before it
//	               decides whether to compress: td keeps the transcript's
//	               size, and the session's next event reads the transcript
//	               (Compressed) to learn whether it happened; only then is
//	               the handoff written, the session compacted and the
//	               reminder kept for the next prompt
//	AfterAgent     stop the session at the end of the turn; its
//	               prompt_response is kept for the handoff
//	SessionEnd     the handoff is written, the session stops and its
//	               claim's lease ends
//	Notification   read and ignored: it is Gemini's alert that it asks the
//	               user to permit a tool call, which no hook can answer
//	               or add context to, and BeforeTool has judged the call
//	               already; td does not install it
//
// Gemini runs a project's hooks only in a folder the user trusts, and
// warns about project hooks it has not seen (Trust reads both records).
package gemini

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// Name names the Gemini CLI among harnesses.
const Name = "gemini"

// Title is how td names the harness to people.
const Title = "Gemini CLI"

// ConfigFile is the project settings file td merges its hooks into.
const ConfigFile = ".gemini/settings.json"

// Events are the Gemini hook events td handles.
var Events = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "PreCompress", "AfterAgent", "SessionEnd", "Notification"}

// Payload is the part of a Gemini CLI hook payload td reads.
type Payload struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Source        string          `json:"source"`
	Prompt        string          `json:"prompt"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Trigger       string          `json:"trigger"`
	Reason        string          `json:"reason"`
	// TranscriptPath is the session's recording, a JSON Lines file.
	TranscriptPath string `json:"transcript_path"`
	// PromptResponse is AfterAgent's: the agent's answer to the prompt.
	PromptResponse string `json:"prompt_response"`
}

// shellTool and fileTools are the built-in tools td reads.
const shellTool = "run_shell_command"

var fileTools = map[string]bool{"write_file": true, "replace": true}

// Config is td's entries in .gemini/settings.json.
func Config() harness.HookConfig {
	entries := []harness.HookEntry{
		{Event: "SessionStart"},
		{Event: "BeforeAgent"},
		{Event: "BeforeTool", Matcher: "run_shell_command|write_file|replace"},
		{Event: "AfterTool"},
		{Event: "PreCompress"},
		{Event: "AfterAgent"},
		{Event: "SessionEnd"},
	}
	for i := range entries {
		entries[i].Command = "td hook " + Name + " " + entries[i].Event
	}
	return harness.HookConfig{Harness: Name, Path: ConfigFile, Layout: harness.MatcherGroups, Entries: entries}
}

// ReadCall reads a Gemini CLI hook payload and maps its event.
func ReadCall(in io.Reader, named string, conv harness.Conversation) (*harness.Call, error) {
	var p Payload
	if err := harness.ReadPayload(in, Title, &p); err != nil {
		return nil, err
	}
	ev, err := harness.EventName(named, p.HookEventName, Title, ConfigFile, Events)
	if err != nil {
		return nil, err
	}
	conv.Harness, conv.ID = Name, p.SessionID
	e := harness.Event{Conversation: conv, Dir: p.Cwd, CompactionDropped: true,
		Compaction: &harness.CompactionCheck{Happened: Compressed}}
	switch ev {
	case "SessionStart":
		e.Moment, e.Source = harness.Start, p.Source
	case "BeforeAgent":
		e.Moment = harness.Prompt
	case "BeforeTool", "AfterTool":
		e.Moment = harness.PreTool
		t := harness.ToolCall{Name: p.ToolName}
		if p.ToolName == shellTool {
			t.Command = harness.InputString(p.ToolInput, "command")
			t.Target = harness.ToolTarget("", t.Command, "")
		} else if fileTools[p.ToolName] {
			t.Paths = harness.InputPaths(p.ToolInput, "file_path", "absolute_path", "path")
		}
		if ev == "AfterTool" {
			e.Moment = harness.PostTool
			if len(t.Paths) > 0 {
				t.Target = harness.ToolTarget(p.Cwd, "", t.Paths[0])
			}
			t.Paths = nil
			if msg, failed := harness.ToolResponseFailure(p.ToolResponse); failed {
				e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
			} else if msg, failed := shellFailure(p.ToolName, p.ToolResponse); failed {
				e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
			}
		}
		e.Tool = t
	case "PreCompress":
		e.Moment = harness.PreCompact
		e.Compaction.Mark = transcriptMark(p.TranscriptPath)
	case "AfterAgent":
		e.Moment, e.LastMessage = harness.Stop, p.PromptResponse
	case "SessionEnd":
		e.Moment, e.Reason = harness.End, p.Reason
	case "Notification":
		e.Moment = harness.Ignored
	}
	return &harness.Call{Native: ev, Cwd: p.Cwd, Event: e}, nil
}

// shellFailure reads a run_shell_command response whose command ran and
// failed: Gemini reports it with no error, as llmContent lines
// "Command: ...", "Output: ...", "Exit Code: N". It returns "Exit code N"
// and the output, and whether the code was not zero.
func shellFailure(tool string, resp json.RawMessage) (string, bool) {
	if tool != shellTool {
		return "", false
	}
	var r struct {
		LLMContent string `json:"llmContent"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return "", false
	}
	code, output := "", ""
	for _, l := range strings.Split(r.LLMContent, "\n") {
		switch {
		case strings.HasPrefix(l, "Exit Code:"):
			code = strings.TrimSpace(strings.TrimPrefix(l, "Exit Code:"))
		case strings.HasPrefix(l, "Output:"):
			output = strings.TrimSpace(strings.TrimPrefix(l, "Output:"))
		}
	}
	if code == "" || code == "0" || code == "(none)" {
		return "", false
	}
	return "Exit code " + code + "\n" + output, true
}

// Render is what td prints for an outcome, as the JSON Gemini reads: a
// denial as {"decision": "deny", "reason": ...}, context and stall
// warnings as the event's hookSpecificOutput additionalContext; nothing
// otherwise.
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	switch {
	case out.Deny != "":
		return harness.EncodeJSON(struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"deny", "td: " + out.Deny})
	case text != "":
		type specific struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		}
		return harness.EncodeJSON(map[string]any{"hookSpecificOutput": specific{c.Native, text}})
	}
	return nil, nil
}
