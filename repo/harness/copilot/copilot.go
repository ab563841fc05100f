// Package copilot is td's adapter for GitHub Copilot's agent hooks (the
// Copilot CLI and the cloud agent, which reads .github/hooks/*.json from
// the default branch): the payload Copilot sends, the mapping of its
// events onto td's session lifecycle, the one answer Copilot reads (a
// preToolUse denial), and td's own hooks file, .github/hooks/td.json.
//
//	sessionStart         start (new, startup) or resume the session
//	userPromptSubmitted  a prompt: the session acts (Copilot reads no
//	                     context from any hook but preToolUse's denial)
//	preToolUse           deny an escalating td command (bash) or a project
//	                     agent's edit of td's records
//	postToolUse          a result of type failure is a session error
//	errorOccurred        the agent's error is a session error
//	sessionEnd           stop the session
package copilot

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// Name names GitHub Copilot among harnesses.
const Name = "copilot"

// Title is how td names the harness to people.
const Title = "GitHub Copilot"

// ConfigFile is td's hooks file among Copilot's .github/hooks/*.json.
const ConfigFile = ".github/hooks/td.json"

// Events are the Copilot hook events td handles.
var Events = []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "errorOccurred", "sessionEnd"}

// checkoutConversation is the conversation id td uses when the payload
// names none (the cloud agent's): one conversation per checkout.
const checkoutConversation = "checkout"

// Payload is the part of a Copilot hook payload td reads (camelCase, as
// Copilot sends it): timestamp and cwd on every event, and each event's
// own. toolArgs is a string holding the arguments as JSON.
type Payload struct {
	SessionID  string          `json:"sessionId"`
	Timestamp  int64           `json:"timestamp"`
	Cwd        string          `json:"cwd"`
	Source     string          `json:"source"`
	Prompt     string          `json:"prompt"`
	ToolName   string          `json:"toolName"`
	ToolArgs   string          `json:"toolArgs"`
	ToolResult *ToolResult     `json:"toolResult"`
	Error      json.RawMessage `json:"error"`
	Reason     string          `json:"reason"`
}

// ToolResult is postToolUse's result of the call.
type ToolResult struct {
	ResultType       string `json:"resultType"`
	TextResultForLlm string `json:"textResultForLlm"`
}

// Config is td's hooks file, .github/hooks/td.json.
func Config() harness.HookConfig {
	var entries []harness.HookEntry
	for _, ev := range Events {
		entries = append(entries, harness.HookEntry{Event: ev, Command: "td hook " + Name + " " + ev})
	}
	return harness.HookConfig{Harness: Name, Path: ConfigFile, Layout: harness.ShellCommands, Entries: entries}
}

// ReadCall reads a Copilot hook payload; the event comes from the hook's
// command, since the payload does not name it.
func ReadCall(in io.Reader, named string, conv harness.Conversation) (*harness.Call, error) {
	var p Payload
	if err := harness.ReadPayload(in, Title, &p); err != nil {
		return nil, err
	}
	ev, err := harness.EventName(named, "", Title, ConfigFile, Events)
	if err != nil {
		return nil, err
	}
	conv.Harness, conv.ID = Name, p.SessionID
	if conv.ID == "" {
		conv.ID = checkoutConversation
	}
	e := harness.Event{Conversation: conv, Dir: p.Cwd, CompactionDropped: true}
	args := json.RawMessage(p.ToolArgs)
	tool := harness.ToolCall{Name: p.ToolName}
	if cmd := harness.InputString(args, "command"); cmd != "" {
		tool.Command, tool.Target = cmd, harness.ToolTarget("", cmd, "")
	} else if strings.ToLower(p.ToolName) != "view" {
		tool.Paths = harness.InputPaths(args, "path", "file_path")
	}
	switch ev {
	case "sessionStart":
		e.Moment, e.Source = harness.Start, harness.SourceStartup
		if p.Source == "resume" {
			e.Source = harness.SourceResume
		}
	case "userPromptSubmitted":
		e.Moment = harness.Prompt
	case "preToolUse":
		e.Moment, e.Tool = harness.PreTool, tool
		if !harness.WritingTool(p.ToolName) {
			e.Tool.Paths = nil // view, grep, glob read what they name
		}
	case "postToolUse":
		e.Moment, e.Tool = harness.PostTool, tool
		if len(tool.Paths) > 0 {
			e.Tool.Target = harness.ToolTarget(p.Cwd, "", tool.Paths[0])
		}
		e.Tool.Paths = nil
		if r := p.ToolResult; r != nil && r.ResultType == "failure" {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: r.TextResultForLlm}
		}
	case "errorOccurred":
		e.Moment = harness.PostTool
		e.Failure = &harness.ToolFailure{Tool: "agent", Error: harness.JSONText(p.Error)}
	case "sessionEnd":
		e.Moment = harness.End
	}
	return &harness.Call{Native: ev, Cwd: p.Cwd, Event: e}, nil
}

// Render is what td prints for an outcome: preToolUse's denial,
// {"permissionDecision": "deny", "permissionDecisionReason": ...}, the one
// answer Copilot reads. A context block or a stall warning is printed as
// text for the hook's log; Copilot does not add it to the agent's context.
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	switch {
	case out.Deny != "":
		return harness.EncodeJSON(struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		}{"deny", "td: " + out.Deny})
	case out.Context != nil:
		return []byte(text), nil
	case text != "":
		return []byte(text + "\n"), nil
	}
	return nil, nil
}
