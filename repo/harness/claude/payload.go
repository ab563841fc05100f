package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// Event names a Claude Code hook event.
type Event string

// The hook events td acts on.
const (
	SessionStart       Event = "SessionStart"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PreCompact         Event = "PreCompact"
	PostCompact        Event = "PostCompact"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	SessionEnd         Event = "SessionEnd"
)

// Events lists the events td handles, in the order a conversation meets
// them.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PreCompact, PostCompact,
	SubagentStart, SubagentStop, Stop, StopFailure, SessionEnd}

// Sources of SessionStart: why the conversation (re)started.
const (
	SourceStartup = harness.SourceStartup
	SourceResume  = harness.SourceResume
	SourceClear   = harness.SourceClear
	SourceCompact = harness.SourceCompact
	// SourceFork: a conversation forked from another (--fork-session, a
	// branch) under a new id; it goes on with the parent's work.
	SourceFork = harness.SourceFork
)

// Payload is the part of a Claude Code hook payload td reads.
type Payload struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName Event  `json:"hook_event_name"`
	Source        string `json:"source"`
	AgentType     string `json:"agent_type"`
	// AgentID names the subagent a tool event comes from; "" for the
	// conversation's own agent.
	AgentID      string          `json:"agent_id"`
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	// Error is PostToolUseFailure's error text, or StopFailure's kind of
	// API error (rate_limit, server_error...).
	Error        json.RawMessage `json:"error"`
	ErrorDetails string          `json:"error_details"`
	IsInterrupt  bool            `json:"is_interrupt"`
	// Model is SessionStart's: the model the conversation runs on.
	Model string `json:"model"`
	// LastAssistantMessage is Stop's, SubagentStop's and StopFailure's.
	LastAssistantMessage string `json:"last_assistant_message"`
	// Reason is SessionEnd's (clear, resume, logout, prompt_input_exit,
	// other).
	Reason string `json:"reason"`
}

// MaxPayload bounds the payload td reads: a tool response carries the
// tool's whole output, so it can be large, but not without limit.
const MaxPayload = 32 << 20

// Call is one run of td's hook: the event, the payload Claude Code sent
// with it, and the failed tool call it reports, if any.
type Call struct {
	Event   Event
	Payload Payload
	// Failure is the failed call a tool event reports; nil for a call that
	// worked or that the user interrupted, and for other events.
	Failure *harness.ToolFailure
	// Guarded is true when the Bash command the call is about holds
	// something the guard judges (harness.Guarded): a command that
	// escalates, or a td approve the review policy decides.
	Guarded bool
	// Paths are the files a PreToolUse's file tool (Write, Edit,
	// MultiEdit, NotebookEdit) would write, for the guard on td's records.
	Paths []string
	// Mapped is the call as a moment of the conversation, for
	// harness.Handle; its Conversation is filled by Handle.
	Mapped harness.Event
}

// fileTools are Claude Code's tools that write a file.
var fileTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// ReadCall reads a hook payload (at most MaxPayload bytes) and names its
// event: named, the event the hook's command gives, or else the payload's
// hook_event_name. An event td does not handle is an error.
func ReadCall(in io.Reader, named Event) (*Call, error) {
	raw, err := io.ReadAll(io.LimitReader(in, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read the hook payload: %w", err)
	}
	if len(raw) > MaxPayload {
		return nil, fmt.Errorf("the hook payload is over %d bytes; nothing recorded", MaxPayload)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("no hook payload on standard input; Claude Code passes one as JSON")
	}
	c := &Call{Event: named}
	p := &c.Payload
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, payloadError(err)
	}
	switch {
	case c.Event == "":
		c.Event = p.HookEventName
	case p.HookEventName != "" && p.HookEventName != c.Event:
		return nil, fmt.Errorf("the command names the event %s but the payload is for %s; fix the hook's command in .claude/settings.json", c.Event, p.HookEventName)
	}
	known := false
	for _, e := range Events {
		known = known || c.Event == e
	}
	switch {
	case c.Event == "":
		return nil, errors.New("no event: name it (td hook claude SessionStart) or pass hook_event_name in the payload")
	case !known:
		names := make([]string, len(Events))
		for i, e := range Events {
			names[i] = string(e)
		}
		return nil, fmt.Errorf("td does not handle the event %s; it handles %s (td hooks install --claude --print shows the entries)", c.Event, strings.Join(names, ", "))
	}
	// A tool call that worked is not a td action: nothing to record.
	switch c.Event {
	case PreToolUse:
		if fileTools[p.ToolName] {
			c.Paths = harness.InputPaths(p.ToolInput, "file_path", "notebook_path")
		}
		if p.ToolName == "Bash" {
			var in struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(p.ToolInput, &in) == nil {
				c.Guarded = harness.Guarded(in.Command)
			}
		}
	case PostToolUse:
		if msg, failed := harness.ToolResponseFailure(p.ToolResponse); failed {
			c.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: msg}
		}
	case PostToolUseFailure:
		if !p.IsInterrupt {
			c.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: harness.JSONText(p.Error)}
		}
	}
	c.Mapped = mapEvent(c)
	return c, nil
}

// mapEvent maps a call onto a moment of the conversation: the tool call
// it judges or reports, the subagent it comes from (agent_id, on any
// event), the model, the agent's last message, why it ended.
func mapEvent(c *Call) harness.Event {
	p := &c.Payload
	e := harness.Event{Dir: p.Cwd, Model: p.Model, LastMessage: p.LastAssistantMessage, Reason: p.Reason,
		Tool: harness.ToolCall{Name: p.ToolName, Paths: c.Paths}, Failure: c.Failure}
	if p.AgentID != "" {
		e.Subagent = &harness.Subagent{ID: p.AgentID, Type: p.AgentType}
	}
	switch c.Event {
	case SessionStart:
		e.Moment, e.Source = harness.Start, p.Source
	case UserPromptSubmit:
		e.Moment = harness.Prompt
	case PreToolUse:
		e.Moment = harness.PreTool
		if c.Guarded {
			e.Tool.Command = harness.InputString(p.ToolInput, "command")
		}
	case PostToolUse, PostToolUseFailure:
		e.Moment = harness.PostTool
	case PreCompact:
		e.Moment = harness.PreCompact
	case PostCompact:
		e.Moment = harness.PostCompact
	case SubagentStart:
		e.Moment = harness.SubagentStart
	case SubagentStop:
		e.Moment = harness.SubagentStop
	case Stop:
		e.Moment = harness.Stop
	case StopFailure:
		e.Moment, e.Reason = harness.Failed, harness.JSONText(p.Error)
		if d := strings.TrimSpace(p.ErrorDetails); d != "" {
			e.Reason += " (" + d + ")"
		}
	case SessionEnd:
		e.Moment = harness.End
	}
	return e
}

// Acts reports whether the call does anything to a td session, so that a
// call that does not (PostCompact, a tool call that worked) needs no
// repository.
func (c *Call) Acts() bool {
	switch c.Event {
	case SessionStart, UserPromptSubmit, PreCompact, SubagentStart, SubagentStop, Stop, StopFailure, SessionEnd:
		return true
	}
	return c.Failure != nil || c.Guarded || len(c.Paths) > 0
}

// payloadError says what is wrong with a payload td could not decode.
func payloadError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("the hook payload is not JSON (%v at byte %d); nothing recorded", syn, syn.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return fmt.Errorf("the hook payload's %s is a JSON %s, where Claude Code sends a %s; nothing recorded", typ.Field, typ.Value, jsonKind(typ.Type.Kind().String()))
	}
	return errors.New("the hook payload is not the JSON object Claude Code sends; nothing recorded")
}

// jsonKind names a Go kind the way JSON does.
func jsonKind(k string) string {
	switch k {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "list"
	}
	return "number"
}
