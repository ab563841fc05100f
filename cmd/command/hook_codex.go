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
                       clear starts over with the binding kept, fork goes
                       on as this checkout's last session, compact gives
                       the reminder; the context is printed for Codex to
                       add
   UserPromptSubmit    the claim's heartbeat; after a compaction not yet
                       reported, the reminder
   PreToolUse          denies an agent's td approve, td close with an
                       override, td session start/use as an operator,
                       td feature set|unset, td operator add|rm (Bash), and
                       a project agent's apply_patch of td's own records
   PermissionRequest   the same guard, as the approval's deny decision
   PostToolUse         a failed call is a session error: Codex sends a shell
                       command's output as plain text with no exit code, so
                       td reads the failure from it; three alike in a row
                       add the stall warning
   PreCompact          the handoff; the session is compacted
   PostCompact         the same compaction, counted once
   SubagentStart       the subagent's own session starts; its context is
                       the subagent's additionalContext
   SubagentStop        the subagent's session stops
   Stop, Interrupt     the session stops at the end of the turn; Stop's last
                       message is kept for the handoff
   SessionEnd          the handoff; the session stops; its claim's lease
                       ends

Every event's model is recorded with the session, and a subagent's events
(agent_id) act as its own session. Codex runs a project hook only once
its user reviewed it: td hooks install and td doctor say when it will
not.

td hook codex never fails the harness: on any error it prints nothing on
standard output, one line on standard error, and exits 0. td hooks install
--codex adds the hooks to .codex/hooks.json.

Examples:
   td hook codex SessionStart < payload.json
   td hook codex PreToolUse --agent primary < payload.json`, runF)
}
