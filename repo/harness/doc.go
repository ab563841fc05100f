// Package harness is what every agent harness adapter needs from td, and
// nothing that belongs to one harness.
//
// An agent harness (Claude Code, for one) runs hooks at the moments of a
// conversation: it starts, resumes, is cleared or compacted, ends a turn,
// finishes a tool call. An adapter maps each conversation the harness names
// to one td agent session and each moment onto the session lifecycle. This
// package holds the parts of that which do not depend on the harness:
//
//   - Session maps a harness's conversation ID to a td session, kept under
//     .todos/local/harness/<harness>/ (never committed: the conversation
//     belongs to this checkout): a conversation seen before, the agent
//     session TD_SESSION names, the checkout's last harness session for a
//     resumed or cleared conversation under a new ID, or a new session.
//   - ToolFailure, RecordToolFailure and ToolResponseFailure turn a failed
//     tool call into a session error whose signature stall detection
//     counts; JSONText reads the text out of an error value. They know the
//     shapes several harnesses (and MCP) report failures in.
//   - AppendEnvFileVar appends the export line to an env file a harness
//     sources before each shell command, in one write, as hooks running in
//     parallel must.
//
// What is one harness's own lives in a sibling package named for it,
// repo/harness/<name> (repo/harness/claude is Claude Code's): its payload
// types and event names, which tool input fields name a tool's target,
// the mapping of its events onto the lifecycle (which events adopt the
// last session, which restart or compact it), its output format, and the
// merge of its settings file. An adapter package may import this package,
// repo (the store, its sessions and their lifecycle) and the use-case
// packages beside it, policy and policy/domain; never cmd, never another
// adapter, and only the command that runs its hooks imports it. It takes
// the store and plain requests and returns plain results (a context,
// stalls, what failed): the command renders them. This package itself
// imports only repo and policy/domain, and depends on no harness: a function
// goes here only when a second harness would call it unchanged.
package harness
