package command

import (
	"github.com/tdproject/td/repo/harness/copilot"
	"github.com/urfave/cli/v2"
)

// copilotAdapter is the GitHub Copilot adapter, as td hook copilot runs it.
func copilotAdapter() hookAdapter {
	return hookAdapter{name: copilot.Name, title: copilot.Title, file: copilot.ConfigFile, read: copilot.ReadCall, render: copilot.Render}
}

// hookCopilotCommand is td hook copilot. runF, when not nil, replaces the run
// function.
func (r *runner) hookCopilotCommand(runF func(*HookHarnessOptions) error) *cli.Command {
	return r.harnessHookCommand(copilotAdapter(), `GitHub Copilot (the CLI and the cloud agent) runs the hooks of
.github/hooks/*.json with a JSON payload on standard input (timestamp, cwd,
toolName, toolArgs...). td hook copilot maps each event onto td's session
lifecycle; the payload's sessionId names the conversation, and without one
(the cloud agent) the checkout has one conversation.

   sessionStart          new or startup starts the session, resume resumes
                         it; the context goes back as additionalContext
   userPromptSubmitted   the claim's heartbeat; after a compaction, the
                         reminder
   preToolUse            denies an agent's escalating td command and a
                         project agent's edit of td's own records:
                         {"permissionDecision": "deny", ...}
   postToolUse           a result of type failure (an older Copilot) is a
                         session error
   postToolUseFailure    the failed call is a session error; a stall's
                         warning goes back as additionalContext
   errorOccurred         the agent's error is a session error
   preCompact            the handoff; the session is compacted
   subagentStart         the subagent's own session starts; its context is
                         prepended to its prompt
   subagentStop          the subagent's session stops
   agentStop             the session stops; its claim's lease ends in 15
                         minutes unless a prompt comes
   sessionEnd            the handoff; the session stops; its claim's lease
                         ends

td hook copilot never fails the harness. td hooks install --copilot writes
.github/hooks/td.json.

Examples:
   td hook copilot EVENT < payload.json`, runF)
}
