// Package codex is td's adapter for the Codex CLI: the hook payload it
// sends, the mapping of its events onto td's session lifecycle, its deny
// and context forms, and td's entries in the project's .codex/hooks.json.
//
//	SessionStart        start (startup), resume or restart (clear) the
//	                    conversation's session; the context goes on stdout
//	UserPromptSubmit    after a compaction, the reminder (Codex ignores
//	                    what its compaction hooks print)
//	PreToolUse          deny an escalating td command (Bash) or a project
//	                    agent's hand edit of td's records (apply_patch)
//	PermissionRequest   the same guard, in the approval's deny form
//	PostToolUse         a response reporting a failure is a session error
//	PreCompact,
//	PostCompact         the session is compacted; the reminder waits for
//	                    the next prompt
//	Stop                stop the session at the end of the turn
//
// td writes .codex/hooks.json rather than [hooks] in .codex/config.toml:
// Codex reads both, the JSON file is td's to merge key for key without a
// TOML writer td does not have, and config.toml keeps the user's own
// settings untouched.
package codex

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// Name names the Codex CLI among harnesses.
const Name = "codex"

// Title is how td names the harness to people.
const Title = "Codex CLI"

// ConfigFile is the hooks file td merges its entries into.
const ConfigFile = ".codex/hooks.json"

// Events are the Codex hook events td handles.
var Events = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "Stop"}

// Payload is the part of a Codex hook payload td reads: the fields every
// event has (session_id, cwd, hook_event_name, model, turn_id) and each
// event's own.
type Payload struct {
	SessionID     string          `json:"session_id"`
	TurnID        string          `json:"turn_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Model         string          `json:"model"`
	Source        string          `json:"source"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Trigger       string          `json:"trigger"`
	AgentID       string          `json:"agent_id"`
	AgentType     string          `json:"agent_type"`
}

// Config is td's entries in .codex/hooks.json.
func Config() harness.HookConfig {
	entries := []harness.HookEntry{
		{Event: "SessionStart"},
		{Event: "UserPromptSubmit"},
		{Event: "PreToolUse", Matcher: "Bash|apply_patch"},
		{Event: "PermissionRequest", Matcher: "Bash"},
		{Event: "PostToolUse"},
		{Event: "PreCompact"},
		{Event: "PostCompact"},
		{Event: "Stop"},
	}
	for i := range entries {
		entries[i].Command = "td hook " + Name + " " + entries[i].Event
	}
	return harness.HookConfig{Harness: Name, Path: ConfigFile, Layout: harness.MatcherGroups, Entries: entries}
}

// ReadCall reads a Codex hook payload and maps its event.
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
	c := &harness.Call{Native: ev, Cwd: p.Cwd}
	e := harness.Event{Conversation: conv, Dir: p.Cwd, CompactionDropped: true}
	if p.AgentID != "" {
		e.Subagent = &harness.Subagent{ID: p.AgentID, Type: p.AgentType}
	}
	cmd := harness.InputString(p.ToolInput, "command")
	switch ev {
	case "SessionStart":
		e.Moment, e.Source = harness.Start, p.Source
	case "UserPromptSubmit":
		e.Moment = harness.Prompt
	case "PreToolUse", "PermissionRequest":
		e.Moment = harness.PreTool
		e.Tool = toolCall(p.ToolName, cmd)
	case "PostToolUse":
		e.Moment = harness.PostTool
		e.Tool = toolCall(p.ToolName, cmd)
		if msg, failed := harness.ToolResponseFailure(p.ToolResponse); failed {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
		}
	case "PreCompact":
		e.Moment = harness.PreCompact
	case "PostCompact":
		e.Moment = harness.PostCompact
	case "Stop":
		e.Moment = harness.Stop
	}
	c.Event = e
	return c, nil
}

// toolCall reads a Codex tool call: Bash runs a command; apply_patch
// writes the files its patch names.
func toolCall(name, cmd string) harness.ToolCall {
	t := harness.ToolCall{Name: name}
	if name == "apply_patch" || strings.HasPrefix(strings.TrimSpace(cmd), "*** Begin Patch") {
		t.Paths = harness.PatchPaths(cmd)
		if len(t.Paths) > 0 {
			t.Target = t.Paths[0]
		}
		return t
	}
	t.Command = cmd
	t.Target = harness.ToolTarget("", cmd, "")
	return t
}

// Render is what td prints for an outcome, in Codex's forms: a denial as
// the event's hookSpecificOutput (PreToolUse's permissionDecision,
// PermissionRequest's decision), a context block as plain text (Codex adds
// SessionStart's and UserPromptSubmit's stdout to the context), stall
// warnings as PostToolUse's additionalContext; nothing otherwise.
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	switch {
	case out.Deny != "" && c.Native == "PermissionRequest":
		type decision struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		}
		type specific struct {
			HookEventName string   `json:"hookEventName"`
			Decision      decision `json:"decision"`
		}
		return harness.EncodeJSON(map[string]any{"hookSpecificOutput": specific{c.Native, decision{"deny", "td: " + out.Deny}}})
	case out.Deny != "":
		type specific struct {
			HookEventName            string `json:"hookEventName"`
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		}
		return harness.EncodeJSON(map[string]any{"hookSpecificOutput": specific{c.Native, "deny", "td: " + out.Deny}})
	case out.Context != nil:
		return []byte(text), nil
	case len(out.Stalls) > 0:
		type specific struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		}
		return harness.EncodeJSON(map[string]any{"hookSpecificOutput": specific{c.Native, text}})
	}
	return nil, nil
}
