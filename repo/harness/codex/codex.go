// Package codex is td's adapter for the Codex CLI: the hook payload it
// sends, the mapping of its events onto td's session lifecycle, its deny
// and context forms, and td's entries in the project's .codex/hooks.json.
//
//	SessionStart        start (startup), resume, restart (clear) or go on
//	                    (fork) with the conversation's session; after a
//	                    compaction (compact) the reminder; the context
//	                    goes on stdout
//	UserPromptSubmit    the claim is renewed; after a compaction Codex
//	                    reported only to its compaction hooks, the reminder
//	PreToolUse          deny an escalating td command (Bash) or a project
//	                    agent's hand edit of td's records (apply_patch)
//	PermissionRequest   the same guard, in the approval's deny form
//	PostToolUse         a failed call is a session error: an object that
//	                    says so, or a shell command's output, which Codex
//	                    sends as plain text with no exit code (read by
//	                    shellFailure)
//	PreCompact          the handoff is written and the session compacted;
//	                    the reminder waits for the next start or prompt
//	PostCompact         the same compaction, counted once
//	SubagentStart       the subagent's own session starts; its context is
//	                    the subagent's additionalContext
//	SubagentStop        the subagent's session stops
//	Stop, Interrupt     stop the session at the end of the turn; Stop's
//	                    last_assistant_message is kept for the handoff
//	SessionEnd          the handoff is written, the session stops, and its
//	                    claim's lease ends
//
// Every event names the model, which td records with the session; a
// subagent's tool events (agent_id) act as the subagent's own session.
//
// td writes .codex/hooks.json rather than [hooks] in .codex/config.toml:
// Codex reads both, the JSON file is td's to merge key for key without a
// TOML writer td does not have, and config.toml keeps the user's own
// settings untouched. Codex runs a project hook only once the user has
// trusted it (Trust reads Codex's record of that).
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
var Events = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
	"SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd"}

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
	// LastAssistantMessage is Stop's and SubagentStop's (a string or
	// null).
	LastAssistantMessage *string `json:"last_assistant_message"`
	Reason               string  `json:"reason"`
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
		{Event: "SubagentStart"},
		{Event: "SubagentStop"},
		{Event: "Stop"},
		{Event: "SessionEnd"},
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
	e := harness.Event{Conversation: conv, Dir: p.Cwd, CompactionDropped: true, Model: p.Model}
	if p.AgentID != "" {
		e.Subagent = &harness.Subagent{ID: p.AgentID, Type: p.AgentType}
	}
	if p.LastAssistantMessage != nil {
		e.LastMessage = *p.LastAssistantMessage
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
		} else if msg, failed := shellFailure(p.ToolResponse); failed {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
		}
	case "PreCompact":
		e.Moment = harness.PreCompact
	case "PostCompact":
		e.Moment = harness.PostCompact
	case "SubagentStart":
		e.Moment = harness.SubagentStart
	case "SubagentStop":
		e.Moment = harness.SubagentStop
	case "Stop", "Interrupt":
		e.Moment = harness.Stop
	case "SessionEnd":
		e.Moment, e.Reason = harness.End, p.Reason
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
	case out.Context != nil && c.Native == "SubagentStart":
		type specific struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		}
		return harness.EncodeJSON(map[string]any{"hookSpecificOutput": specific{c.Native, text}})
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
