// Package cursor is td's adapter for Cursor's agent hooks: the payload
// Cursor sends, the mapping of its events onto td's session lifecycle, its
// answers, and td's entries in the project's .cursor/hooks.json.
//
//	sessionStart          start the conversation's session; the context
//	                      goes back as additional_context
//	beforeShellExecution  deny an escalating td command (permission deny,
//	                      with the message the agent reads)
//	preToolUse            deny a project agent's write of td's records, or
//	                      a shell tool's escalating td command
//	beforeMCPExecution    the same guard on an MCP tool call: a command in
//	                      its input, or the files a writing tool names
//	afterFileEdit         a project agent's edit of td's records, which
//	                      Cursor lets no hook undo, is recorded as a session
//	                      error and reported with the next tool call
//	beforeSubmitPrompt    the session's claim is renewed; Cursor takes no
//	                      context here, so a reminder waits for a tool call
//	postToolUse           a tool output reporting a failure is a session
//	                      error
//	postToolUseFailure    the failed call is a session error
//	preCompact            the session is compacted; Cursor takes no context
//	                      from this hook nor at a prompt, so the reminder
//	                      comes with the next tool call's additional_context
//	stop                  stop the session at the end of the turn
//	sessionEnd            the handoff is written, the session stops and
//	                      its claim's lease ends
//
// The common field model is recorded with the session.
package cursor

import (
	"encoding/json"
	"io"

	"github.com/tdproject/td/repo/harness"
)

// Name names Cursor among harnesses.
const Name = "cursor"

// Title is how td names the harness to people.
const Title = "Cursor"

// ConfigFile is the project hooks file td merges its entries into.
const ConfigFile = ".cursor/hooks.json"

// Events are the Cursor hook events td handles.
var Events = []string{"sessionStart", "beforeSubmitPrompt", "beforeShellExecution", "beforeMCPExecution", "preToolUse", "postToolUse", "postToolUseFailure", "afterFileEdit", "preCompact", "stop", "sessionEnd"}

// Payload is the part of a Cursor hook payload td reads: the common
// fields (conversation_id, generation_id, hook_event_name,
// workspace_roots) and each event's own.
type Payload struct {
	ConversationID string          `json:"conversation_id"`
	Model          string          `json:"model"`
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	Command        string          `json:"command"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	ErrorMessage   string          `json:"error_message"`
	FailureType    string          `json:"failure_type"`
	IsInterrupt    bool            `json:"is_interrupt"`
	Status         string          `json:"status"`
	Reason         string          `json:"reason"`
	// FilePath is the file afterFileEdit reports written (absolute).
	FilePath string `json:"file_path"`
	// URL is the MCP server's address at beforeMCPExecution; Command then
	// holds the server's command when it runs locally.
	URL string `json:"url"`
}

// Config is td's entries in .cursor/hooks.json.
func Config() harness.HookConfig {
	var entries []harness.HookEntry
	for _, ev := range Events {
		entries = append(entries, harness.HookEntry{Event: ev, Command: "td hook " + Name + " " + ev})
	}
	return harness.HookConfig{Harness: Name, Path: ConfigFile, Layout: harness.CommandList, Entries: entries}
}

// ReadCall reads a Cursor hook payload and maps its event.
func ReadCall(in io.Reader, named string, conv harness.Conversation) (*harness.Call, error) {
	var p Payload
	if err := harness.ReadPayload(in, Title, &p); err != nil {
		return nil, err
	}
	ev, err := harness.EventName(named, p.HookEventName, Title, ConfigFile, Events)
	if err != nil {
		return nil, err
	}
	conv.Harness, conv.ID = Name, p.ConversationID
	if conv.ID == "" {
		conv.ID = p.SessionID
	}
	dir := p.Cwd
	if dir == "" && len(p.WorkspaceRoots) > 0 {
		dir = p.WorkspaceRoots[0]
	}
	e := harness.Event{Conversation: conv, Dir: dir, CompactionDropped: true, ReinjectAtTool: true, Model: p.Model}
	tool := func() harness.ToolCall {
		t := harness.ToolCall{Name: p.ToolName}
		if cmd := harness.InputString(p.ToolInput, "command"); cmd != "" {
			t.Command, t.Target = cmd, harness.ToolTarget("", cmd, "")
		} else {
			t.Paths = harness.InputPaths(p.ToolInput, "file_path", "path", "target_file")
		}
		return t
	}
	switch ev {
	case "sessionStart":
		e.Moment, e.Source = harness.Start, harness.SourceStartup
	case "beforeShellExecution":
		e.Moment = harness.PreTool
		e.Tool = harness.ToolCall{Name: "Shell", Command: p.Command}
	case "preToolUse":
		e.Moment, e.Tool = harness.PreTool, tool()
		if !harness.WritingTool(p.ToolName) {
			e.Tool.Paths = nil // Read and Grep read what they name
		}
	case "beforeMCPExecution":
		// Command is the MCP server's here, never a shell command to judge;
		// what the tool does is in its input, a JSON string or an object.
		input := outputObject(p.ToolInput)
		t := harness.ToolCall{Name: p.ToolName, Command: harness.InputString(input, "command")}
		if harness.WritingTool(p.ToolName) {
			t.Paths = harness.InputPaths(input, "file_path", "path", "filePath", "target_file")
		}
		e.Moment, e.Tool = harness.PreTool, t
	case "afterFileEdit":
		e.Moment = harness.Edited
		e.Tool = harness.ToolCall{Name: "Edit"}
		if p.FilePath != "" {
			e.Tool.Paths = []string{p.FilePath}
			e.Tool.Target = harness.ToolTarget(dir, "", p.FilePath)
		}
	case "beforeSubmitPrompt":
		e.Moment = harness.Prompt
	case "postToolUse", "postToolUseFailure":
		e.Moment, e.Tool = harness.PostTool, tool()
		if len(e.Tool.Paths) > 0 {
			e.Tool.Target = harness.ToolTarget(dir, "", e.Tool.Paths[0])
		}
		e.Tool.Paths = nil
		if ev == "postToolUseFailure" && !p.IsInterrupt {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: p.ErrorMessage}
		} else if msg, failed := harness.ToolResponseFailure(outputObject(p.ToolOutput)); failed && ev == "postToolUse" {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
		}
	case "preCompact":
		e.Moment = harness.PreCompact
	case "stop":
		e.Moment = harness.Stop
	case "sessionEnd":
		e.Moment, e.Reason = harness.End, p.Reason
	}
	return &harness.Call{Native: ev, Cwd: dir, Event: e}, nil
}

// outputObject is a tool output as an object: Cursor sends it as a string
// holding JSON, or as the object itself.
func outputObject(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return json.RawMessage(s)
	}
	return raw
}

// Render is what td prints for an outcome, in Cursor's answers:
// beforeShellExecution's and beforeMCPExecution's {"permission": "deny",
// "user_message", "agent_message"}, preToolUse's {"decision": "deny",
// "reason"}, sessionStart's and postToolUse's {"additional_context"};
// nothing otherwise (afterFileEdit and beforeSubmitPrompt answer with no
// context, so what td has for the agent waits for a tool call).
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	switch {
	case out.Deny != "" && (c.Native == "beforeShellExecution" || c.Native == "beforeMCPExecution"):
		return harness.EncodeJSON(struct {
			Permission   string `json:"permission"`
			UserMessage  string `json:"user_message"`
			AgentMessage string `json:"agent_message"`
		}{"deny", "td: " + out.Deny, "td: " + out.Deny})
	case out.Deny != "":
		return harness.EncodeJSON(struct {
			Decision string `json:"decision"`
			Reason   string `json:"reason"`
		}{"deny", "td: " + out.Deny})
	case text != "" && (c.Native == "sessionStart" || c.Native == "postToolUse" || c.Native == "postToolUseFailure"):
		return harness.EncodeJSON(struct {
			AdditionalContext string `json:"additional_context"`
		}{text})
	}
	return nil, nil
}

// Readiness says whether Cursor will run td's hooks in the work tree at
// root. Cursor keeps no record td can read of the hooks it loaded.
func Readiness(root string) (*harness.Readiness, error) {
	r, err := Config().Readiness(root)
	if err != nil || !r.Installed {
		return r, err
	}
	r.Notes = append(r.Notes, "Cursor lists the hooks it loaded in its Hooks settings: open them to see td's, and reload the window if they are not there")
	return r, nil
}
