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
                         it
   userPromptSubmitted   the session acts
   preToolUse            denies an agent's escalating td command and a
                         project agent's edit of td's own records:
                         {"permissionDecision": "deny", ...}, the only
                         answer Copilot reads
   postToolUse           a result of type failure is a session error
   errorOccurred         the agent's error is a session error
   sessionEnd            the session stops

Copilot adds no hook output to the agent's context: the agent reads its
context with td context. td hook copilot never fails the harness. td hooks
install --copilot writes .github/hooks/td.json.

Examples:
   td hook copilot EVENT < payload.json`, runF)
}
