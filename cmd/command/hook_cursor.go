package command

import (
	"github.com/tdproject/td/repo/harness/cursor"
	"github.com/urfave/cli/v2"
)

// cursorAdapter is the Cursor adapter, as td hook cursor runs it.
func cursorAdapter() hookAdapter {
	return hookAdapter{name: cursor.Name, title: cursor.Title, file: cursor.ConfigFile, read: cursor.ReadCall, render: cursor.Render}
}

// hookCursorCommand is td hook cursor. runF, when not nil, replaces the run
// function.
func (r *runner) hookCursorCommand(runF func(*HookHarnessOptions) error) *cli.Command {
	return r.harnessHookCommand(cursorAdapter(), `Cursor runs its agent hooks with a JSON payload on standard input
(conversation_id, generation_id, hook_event_name, workspace_roots...). td
hook cursor maps each event onto td's session lifecycle; each Cursor
conversation (conversation_id) acts as one td agent session.

   sessionStart          starts the session; the context goes back as
                         additional_context
   beforeSubmitPrompt    renews the session's claim; prints nothing
   beforeShellExecution  denies an agent's escalating td command:
                         {"permission": "deny", "agent_message": ...}
   beforeMCPExecution    the same guard on an MCP tool's command, and on
                         the files a writing MCP tool names
   preToolUse            denies a project agent's write of td's own
                         records, or a shell tool's escalating td command:
                         {"decision": "deny", "reason": ...}
   postToolUse,
   postToolUseFailure    a failed call is a session error; three alike in a
                         row add the stall warning
   afterFileEdit         a project agent's edit of td's records, which
                         Cursor lets no hook undo, is recorded as a session
                         error and reported with the next tool call
   preCompact            the handoff; the session is compacted
   stop                  the session stops
   sessionEnd            the handoff; the session stops; its claim's lease
                         ends

td hook cursor never fails the harness: on any error it prints nothing on
standard output, one line on standard error, and exits 0. td hooks install
--cursor adds the hooks to .cursor/hooks.json.

Examples:
   td hook cursor EVENT < payload.json`, runF)
}
