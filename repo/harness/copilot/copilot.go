// Package copilot is td's adapter for GitHub Copilot's agent hooks (the
// Copilot CLI and the cloud agent, which reads .github/hooks/*.json from
// the default branch): the payload Copilot sends (camelCase, as the hook's
// event is configured in camelCase), the mapping of its events onto td's
// session lifecycle, Copilot's answers, and td's own hooks file,
// .github/hooks/td.json.
//
//	sessionStart         start (new, startup) or resume the session; the
//	                     context goes back as additionalContext
//	userPromptSubmitted  the claim is renewed; after a compaction, the
//	                     reminder
//	preToolUse           deny an escalating td command (bash) or a project
//	                     agent's edit of td's records
//	postToolUse          a result of type failure is a session error (a
//	                     Copilot older than postToolUseFailure sent it here)
//	postToolUseFailure   the failed call is a session error; the stall
//	                     warning goes back as additionalContext
//	errorOccurred        the agent's error is a session error
//	preCompact           the handoff is written and the session compacted;
//	                     the reminder waits for the next prompt
//	subagentStart        the subagent's own session starts; its context is
//	                     prepended to the subagent's prompt
//	subagentStop         the subagent's session stops
//	agentStop            the main agent stopped and waits: the session
//	                     stops, and its claim's lease ends after a grace
//	                     unless a prompt comes (the cloud agent sends no
//	                     later event)
//	sessionEnd           the handoff is written, the session stops and its
//	                     claim's lease ends
//	notification         not installed: a system notice no hook answers
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
var Events = []string{"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure", "errorOccurred",
	"preCompact", "subagentStart", "subagentStop", "agentStop", "sessionEnd"}

// checkoutConversation is the conversation id td uses when the payload
// names none (the cloud agent's): one conversation per checkout.
const checkoutConversation = "checkout"

// Payload is the part of a Copilot hook payload td reads (camelCase, as
// Copilot sends it): timestamp and cwd on every event, the subagent's
// agentId and agentType on a subagent's, and each event's own. toolArgs
// is a string holding the arguments as JSON, or the arguments.
type Payload struct {
	SessionID  string          `json:"sessionId"`
	Timestamp  int64           `json:"timestamp"`
	Cwd        string          `json:"cwd"`
	AgentID    string          `json:"agentId"`
	AgentType  string          `json:"agentType"`
	AgentName  string          `json:"agentName"`
	Source     string          `json:"source"`
	Prompt     string          `json:"prompt"`
	ToolName   string          `json:"toolName"`
	ToolArgs   json.RawMessage `json:"toolArgs"`
	ToolResult *ToolResult     `json:"toolResult"`
	// Error is a string (postToolUseFailure, errorOccurred), or the
	// object an older Copilot sent ({"message", "name", "stack"}).
	Error        json.RawMessage `json:"error"`
	Reason       string          `json:"reason"`
	FinalMessage string          `json:"finalMessage"`
	StopReason   string          `json:"stopReason"`
	// Response is subagentStop's: the subagent's last message.
	Response string `json:"response"`
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
	if p.AgentID != "" {
		e.Subagent = &harness.Subagent{ID: p.AgentID, Type: p.AgentType}
	}
	args := toolArgs(p.ToolArgs)
	tool := harness.ToolCall{Name: p.ToolName}
	if cmd := harness.InputString(args, "command"); cmd != "" {
		tool.Command, tool.Target = cmd, harness.ToolTarget("", cmd, "")
	} else if strings.ToLower(p.ToolName) != "view" {
		tool.Paths = harness.InputPaths(args, "path", "file_path")
	}
	postTool := func() {
		e.Moment, e.Tool = harness.PostTool, tool
		if len(tool.Paths) > 0 {
			e.Tool.Target = harness.ToolTarget(p.Cwd, "", tool.Paths[0])
		}
		e.Tool.Paths = nil
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
		postTool()
		if r := p.ToolResult; r != nil && r.ResultType == "failure" {
			e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: r.TextResultForLlm}
		}
	case "postToolUseFailure":
		postTool()
		e.Failure = &harness.ToolFailure{Tool: p.ToolName, Error: harness.JSONText(p.Error)}
	case "errorOccurred":
		e.Moment = harness.PostTool
		e.Failure = &harness.ToolFailure{Tool: "agent", Error: harness.JSONText(p.Error)}
	case "preCompact":
		e.Moment = harness.PreCompact
	case "subagentStart", "subagentStop":
		// Their sessionId is the parent's. subagentStart names the
		// subagent by its agentName alone (subagentStop adds agentId),
		// so the name is what ties the two together.
		id, kind := p.AgentName, p.AgentName
		if id == "" {
			id, kind = p.AgentID, p.AgentType
		}
		e.Subagent = &harness.Subagent{ID: id, Type: kind}
		e.Moment, e.LastMessage = harness.SubagentStart, p.Response
		if ev == "subagentStop" {
			e.Moment = harness.SubagentStop
		}
	case "agentStop":
		e.Moment, e.Reason, e.Yield = harness.Stop, p.StopReason, true
	case "sessionEnd":
		e.Moment, e.Reason, e.LastMessage = harness.End, p.Reason, p.FinalMessage
	}
	return &harness.Call{Native: ev, Cwd: p.Cwd, Event: e}, nil
}

// toolArgs reads toolArgs as the arguments' JSON: Copilot sends a string
// holding it, or the arguments themselves.
func toolArgs(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return json.RawMessage(s)
	}
	return raw
}

// contextEvents are the events whose additionalContext Copilot adds to
// the agent's (for subagentStart, the subagent's) context.
var contextEvents = map[string]bool{"sessionStart": true, "userPromptSubmitted": true, "postToolUseFailure": true, "subagentStart": true}

// Render is what td prints for an outcome: preToolUse's denial,
// {"permissionDecision": "deny", "permissionDecisionReason": ...}; the
// context or stall warning as {"additionalContext": ...} at the events
// that take it; otherwise, text for the hook's log.
func Render(c *harness.Call, out *harness.Outcome, text string) ([]byte, error) {
	switch {
	case out.Deny != "":
		return harness.EncodeJSON(struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		}{"deny", "td: " + out.Deny})
	case text != "" && contextEvents[c.Native]:
		return harness.EncodeJSON(struct {
			AdditionalContext string `json:"additionalContext"`
		}{text})
	case out.Context != nil:
		return []byte(text), nil
	case text != "":
		return []byte(text + "\n"), nil
	}
	return nil, nil
}

// Readiness says whether GitHub Copilot will run td's hooks in the work
// tree at root. td cannot read it: the Copilot CLI runs the hooks of a
// folder its user trusts, and the cloud agent reads .github/hooks/ from
// the repository's default branch only.
func Readiness(root string) (*harness.Readiness, error) {
	r, err := Config().Readiness(root)
	if err != nil || !r.Installed {
		return r, err
	}
	r.Notes = append(r.Notes, "the Copilot CLI runs them in a folder its user trusted (it asks at its first start there); the cloud agent reads "+ConfigFile+" from the default branch only: commit it and merge it there")
	return r, nil
}
