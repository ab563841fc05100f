package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tdproject/td/repo/harness"
)

// Event names a Claude Code hook event.
type Event string

// The hook events td acts on.
const (
	SessionStart       Event = "SessionStart"
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	Stop               Event = "Stop"
	SessionEnd         Event = "SessionEnd"
	PreCompact         Event = "PreCompact"
)

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
	Error        json.RawMessage `json:"error"`
	IsInterrupt  bool            `json:"is_interrupt"`
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
	switch c.Event {
	case "":
		return nil, errors.New("no event: name it (td hook claude SessionStart) or pass hook_event_name in the payload")
	case SessionStart, PreToolUse, Stop, SessionEnd, PostToolUse, PostToolUseFailure, PreCompact:
	default:
		return nil, fmt.Errorf("td does not handle the event %s; it handles SessionStart, PreToolUse, PostToolUse, PostToolUseFailure, Stop and SessionEnd (td hooks install --claude --print shows the entries)", c.Event)
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
	return c, nil
}

// Acts reports whether the call does anything to a td session, so that a
// call that does not (PreCompact, a tool call that worked) needs no
// repository.
func (c *Call) Acts() bool {
	switch c.Event {
	case SessionStart, Stop, SessionEnd:
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
