package command

import (
	"github.com/tdproject/td/repo/harness/opencode"
	"github.com/urfave/cli/v2"
)

// opencodeAdapter is OpenCode's adapter, as td hook opencode runs it for
// td's plugin.
func opencodeAdapter() hookAdapter {
	return hookAdapter{name: opencode.Name, title: opencode.Title, file: opencode.ConfigFile, read: opencode.ReadCall, render: opencode.Render}
}

// hookOpencodeCommand is td hook opencode. runF, when not nil, replaces
// the run function.
func (r *runner) hookOpencodeCommand(runF func(*HookHarnessOptions) error) *cli.Command {
	return r.harnessHookCommand(opencodeAdapter(), `OpenCode's hooks are JavaScript plugins: td hooks install --opencode writes
.opencode/plugins/td.js, which runs td hook opencode EVENT with a small JSON
payload (session_id, cwd, tool, args, output, metadata, error) and acts on
td's answer, {"session", "context", "deny"}.

   session.created        starts the session; the context goes into the
                          next system prompt, and shell commands get
                          TD_SESSION
   session.resumed        a session's first message in a new OpenCode
                          process: resumes the session
   tool.execute.before    denies an agent's escalating td command (bash)
                          and a project agent's edit of td's own records:
                          the plugin throws td's sentence as the error
   tool.execute.after     a bash call with a non-zero exit is a session
                          error; the stall warning is added to its output
   experimental.session.compacting
                          the handoff; the session is compacted
   session.compacted      the reminder, for the next system prompt
   session.error          the turn ended on an error: a session error; the
                          session stops; its claim's lease ends in 15
                          minutes unless the conversation goes on
   session.idle           the session stops
   session.deleted        the handoff; the session stops; its claim's lease
                          ends

td hook opencode never fails the plugin: on any error it prints nothing on
standard output, one line on standard error, and exits 0.

Examples:
   td hook opencode session.created < payload.json`, runF)
}
