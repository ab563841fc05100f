package command

import (
	"github.com/tdproject/td/repo/harness/codex"
	"github.com/urfave/cli/v2"
)

// codexAdapter is the Codex CLI's adapter, as td hook codex runs it.
func codexAdapter() hookAdapter {
	return hookAdapter{name: codex.Name, title: codex.Title, file: codex.ConfigFile, read: codex.ReadCall, render: codex.Render}
}

// hookCodexCommand is td hook codex. runF, when not nil, replaces the
// run function.
func (r *runner) hookCodexCommand(runF func(*HookHarnessOptions) error) *cli.Command {
	return r.harnessHookCommand(codexAdapter(), `The Codex CLI runs its hooks with a JSON payload on standard input
(session_id, turn_id, model, cwd, tool_name, tool_input...). td hook codex
maps each event onto td's session lifecycle, as td hook claude does for
Claude Code; each Codex session (session_id) acts as one td agent session.

   SessionStart        startup starts the session, resume resumes it,
                       clear starts over with the binding kept; the
                       context is printed for Codex to add
   UserPromptSubmit    after a compaction, the reminder: Codex ignores what
                       its compaction hooks print, so td gives it here
   PreToolUse          denies an agent's td approve, td close with an
                       override, td session start/use as an operator,
                       td feature set|unset, td operator add|rm (Bash), and
                       a project agent's apply_patch of td's own records
   PermissionRequest   the same guard, as the approval's deny decision
   PostToolUse         a response reporting a failure is a session error;
                       three alike in a row add the stall warning
   PreCompact,
   PostCompact         the session is compacted (counted once)
   Stop                the session stops at the end of the turn

td hook codex never fails the harness: on any error it prints nothing on
standard output, one line on standard error, and exits 0. td hooks install
--codex adds the hooks to .codex/hooks.json.

Examples:
   td hook codex SessionStart < payload.json
   td hook codex PreToolUse --agent primary < payload.json`, runF)
}
