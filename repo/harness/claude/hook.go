package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/harness"
	"github.com/tdproject/td/repo/sessions"
)

// EnvFileVar is the environment variable in which Claude Code names the
// env file it sources before each shell command.
const EnvFileVar = "CLAUDE_ENV_FILE"

// Options say how to start a session for a conversation td has not seen:
// its agent path (empty: the payload's agent_type when it names a root
// agent, else primary) and scope (empty: project).
type Options struct {
	Agent    domain.AgentPath
	Category domain.Category
}

// Outcome is what one hook call did, for the command to render.
type Outcome struct {
	Event Event
	// Session is the td session the conversation acts as; nil when the call
	// did nothing (a Stop for a conversation td never started).
	Session *repo.Session
	// Context is the block SessionStart adds to the agent's context: the
	// start prefix, the resume block, or the post-compaction reminder.
	Context *sessions.Context
	// EnvFile is the env file Claude Code named, "" when it named none;
	// EnvErr says why TD_SESSION could not be written to it. The agent's
	// shell commands act as its session only when both are fine.
	EnvFile string
	EnvErr  error
	// Stalls are the stall warnings a recorded tool failure set off.
	Stalls []policy.Stall
	// Deny is why PreToolUse denies the tool call, "" to let it run.
	Deny string
}

// Handle maps one hook call onto the session lifecycle of the
// conversation's td session: SessionStart starts, resumes, restarts,
// forks or compacts it (and names it in the env file), the rest as
// harness.Handle maps each moment.
func Handle(s *repo.Store, c *Call, o Options) (*Outcome, error) {
	out := &Outcome{Event: c.Event}
	if !c.Acts() {
		return out, nil
	}
	p := c.Payload
	conv := harness.Conversation{Harness: Name, ID: p.SessionID, Agent: o.Agent, Category: o.Category}
	if conv.Agent == "" && p.AgentID == "" {
		if at := domain.AgentPath(strings.ToLower(strings.TrimSpace(p.AgentType))); at != "" && at.Valid() && !at.IsSubagent() {
			conv.Agent = at
		}
	}
	ev := c.Mapped
	ev.Conversation = conv
	if ev.Failure != nil {
		f := *ev.Failure
		ev.Failure = &f
		ev.Tool.Target = toolTarget(s.Root, p.ToolInput)
	}
	res, err := harness.Handle(s, ev)
	if err != nil {
		return out, err
	}
	out.Session, out.Context, out.Stalls, out.Deny = res.Session, res.Context, res.Stalls, res.Deny
	if c.Event == SessionStart && out.Session != nil {
		if out.EnvFile = s.Env(EnvFileVar); out.EnvFile != "" {
			out.EnvErr = harness.AppendEnvFileVar(out.EnvFile, "TD_SESSION", out.Session.ID)
		}
	}
	return out, nil
}

// DenyToolUse is Claude Code's form for a PreToolUse hook that denies the
// call: {"hookSpecificOutput": {"hookEventName": "PreToolUse",
// "permissionDecision": "deny", "permissionDecisionReason": ...}}; the
// reason is shown to the agent.
func DenyToolUse(reason string) ([]byte, error) {
	type specific struct {
		HookEventName            Event  `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	return hookSpecific(specific{PreToolUse, "deny", reason})
}

// hookSpecific encodes {"hookSpecificOutput": v} as Claude Code reads a
// hook's answer: indented, HTML left unescaped.
func hookSpecific(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		HookSpecificOutput any `json:"hookSpecificOutput"`
	}{v})
	return b.Bytes(), err
}

// toolTarget reads what a tool call acted on from its tool_input: the
// first line of Bash's command, or the file of a file tool (file_path,
// notebook_path, path), relative to the work tree root when inside it.
func toolTarget(root string, input json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	if cmd := harness.JSONText(m["command"]); cmd != "" {
		first, _, _ := strings.Cut(cmd, "\n")
		return strings.TrimSpace(first)
	}
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		p := harness.JSONText(m[k])
		if p == "" {
			continue
		}
		if filepath.IsAbs(p) {
			if r, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(r) {
				return filepath.ToSlash(r)
			}
		}
		return p
	}
	return ""
}

// AdditionalContext is Claude Code's form for text a hook adds to the
// agent's context: {"hookSpecificOutput": {"hookEventName": ...,
// "additionalContext": ...}}, indented, HTML left unescaped.
func AdditionalContext(event Event, text string) ([]byte, error) {
	type specific struct {
		HookEventName     Event  `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return hookSpecific(specific{event, text})
}
