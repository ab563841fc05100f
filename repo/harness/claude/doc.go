// Package claude is td's adapter for Claude Code: the hook payload it
// sends, the mapping of each hook event onto td's session lifecycle, the
// form of the context a hook adds, and the merge of td's hook entries into
// the project's .claude/settings.json.
//
// The events td handles, and what each does:
//
//	SessionStart startup  start the conversation's session (or take the
//	                      agent session TD_SESSION names) and give its
//	                      context; a conversation seen before resumes
//	SessionStart resume   resume (adopting the checkout's last harness
//	                      session when the id is new)
//	SessionStart clear    restart: a fresh context, binding kept (adopting
//	                      as resume does)
//	SessionStart fork     resume: the forked conversation, under its new
//	                      id, goes on as the checkout's last harness
//	                      session, binding kept
//	SessionStart compact  compact: the post-compaction reminder
//	PreToolUse            deny a Bash call's escalating td command, or a
//	                      project agent's Write or Edit of td's records
//	PostToolUse           a response that reports a failure is recorded as
//	                      a session error; success records nothing
//	PostToolUseFailure    the failed call is recorded as a session error,
//	                      unless the user interrupted it; a subagent's
//	                      call (agent_id) counts against the subagent's
//	                      own session
//	Stop, SessionEnd      stop the session, if td ever started it
//	PreCompact            nothing: the reminder comes after the summary
//
// SessionStart also appends "export TD_SESSION=<id>" to the env file
// Claude Code names in $CLAUDE_ENV_FILE, in one write as parallel hooks
// must. What is not Claude Code's own
// (mapping a conversation to a session, recording a failure, the env file
// writer) is in the parent package, repo/harness. The package returns
// what happened (a context, stalls, an env file it could not write); the
// command renders it.
package claude

// Name names Claude Code among harnesses: the key of its conversations
// under .todos/local/harness, and the word after td hook.
const Name = "claude"
