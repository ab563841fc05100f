package command

import (
	"github.com/tdproject/td/repo/harness/gemini"
	"github.com/urfave/cli/v2"
)

// geminiAdapter is the Gemini CLI adapter, as td hook gemini runs it.
func geminiAdapter() hookAdapter {
	return hookAdapter{name: gemini.Name, title: gemini.Title, file: gemini.ConfigFile, read: gemini.ReadCall, render: gemini.Render}
}

// hookGeminiCommand is td hook gemini. runF, when not nil, replaces the run
// function.
func (r *runner) hookGeminiCommand(runF func(*HookHarnessOptions) error) *cli.Command {
	return r.harnessHookCommand(geminiAdapter(), `The Gemini CLI runs its hooks with a JSON payload on standard input
(session_id, cwd, hook_event_name, tool_name, tool_input...) and reads only
JSON on standard output. td hook gemini maps each event onto td's session
lifecycle; each Gemini session (session_id) acts as one td agent session.

   SessionStart   startup starts the session, resume resumes it, clear
                  starts over with the binding kept; the context goes back
                  as additionalContext
   BeforeAgent    renews the session's claim; after a compression, the
                  reminder (Gemini adds nothing PreCompress prints)
   BeforeTool     denies an agent's escalating td command
                  (run_shell_command) and a project agent's write_file or
                  replace of td's own records: {"decision": "deny"}
   AfterTool      a response with an error is a session error; three alike
                  in a row add the stall warning
   PreCompress    Gemini fires it at every compression attempt: td keeps
                  the transcript's size, and counts a compaction (with its
                  handoff) only when the transcript shows one happened
   AfterAgent     the session stops; a compression since PreCompress is
                  settled first, and the reply is kept for the handoff
   SessionEnd     the handoff; the session stops; its claim's lease ends
   Notification   ignored: Gemini asking the user to permit a tool call is
                  nothing a hook can answer; not installed

td hook gemini never fails the harness: on any error it prints nothing on
standard output, one line on standard error, and exits 0. td hooks install
--gemini adds the hooks to .gemini/settings.json.

Examples:
   td hook gemini EVENT < payload.json`, runF)
}
