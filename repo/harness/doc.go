// Package harness is what every agent harness adapter needs from td, and
// nothing that belongs to one harness.
//
// An agent harness (Claude Code, the Codex CLI, the Gemini CLI, Cursor,
// GitHub Copilot, OpenCode) runs hooks at the moments of a conversation:
// it starts, resumes, is cleared, forked or compacted, a prompt comes, a
// tool call is about to run or has run, a turn ends. An adapter maps each
// conversation the harness names to one td agent session and each moment
// onto the session lifecycle. This package holds the parts of that which
// do not depend on the harness:
//
//   - Session maps a harness's conversation ID to a td session, kept under
//     .todos/local/harness/<harness>/ (never committed: the conversation
//     belongs to this checkout): a conversation seen before, the agent
//     session TD_SESSION names, the checkout's last harness session for a
//     resumed, cleared or forked conversation under a new ID, or a new
//     session. SubagentSession gives a subagent a session of its own.
//   - Event, Handle, Begin and StopSession are the moments of a
//     conversation and their mapping onto the lifecycle, including the
//     compaction reminder kept for the next prompt (or tool call) where a
//     harness drops what its compaction hooks print. Renew is the
//     session's heartbeat: its claim's lease is renewed at a start, a
//     prompt, a turn's end and the tool calls td judges. An Edited write
//     (one the harness made before any hook could deny it) is judged as a
//     PreTool would be, recorded, and reported with the next tool call.
//   - The end of a conversation ends its claim's lease (End at once,
//     Failed and a Stop that yields after FailureGrace); a compaction and
//     the end write the session's handoff on its bound issue
//     (sessions.RecordHandoff), quoting the agent's last message kept at
//     the last Stop; a compaction a harness announces but may not make
//     (CompactionCheck) is counted only once the next event confirms it.
//     Every event records the harness, model and subagent with the
//     session (repo.Attribution), which its ledger entries then name.
//   - Readiness says whether a harness will run td's hooks: the config
//     holds them all, and what the harness's own records say it trusts
//     (each adapter reads its harness's).
//   - Escalation, ApprovalDenial and EditDenial are the guard: the td
//     commands an agent may not run, an agent's td approve judged by the
//     decision td approve makes (issues.ApprovalRefusal), and a project
//     agent's hand edit of td's records.
//   - ToolFailure, RecordToolFailure and ToolResponseFailure turn a failed
//     tool call into a session error whose signature stall detection
//     counts; JSONText reads the text out of an error value.
//   - Call, ReadPayload, EventName and the tool input readers are what an
//     adapter reads a payload with; HookConfig merges td's hooks into the
//     JSON configs harnesses keep them in.
//   - AppendEnvFileVar appends the export line to an env file a harness
//     sources before each shell command, in one write, as hooks running in
//     parallel must.
//
// What is one harness's own lives in a sibling package named for it,
// repo/harness/<name>: its payload types and event names, which tool
// input fields name a tool's target, the mapping of its events onto the
// moments, its output format, and its config. An adapter package may
// import this package, repo (the store, its sessions and their lifecycle)
// and the use-case packages beside it, policy and policy/domain; never
// cmd, never another adapter, and only the command that runs its hooks
// imports it. It takes the store and plain requests and returns plain
// results (a context, stalls, a denial): the command renders them. This
// package imports only repo, repo/sessions, repo/claims, repo/issues,
// policy and policy/domain, and
// depends on no harness: a function goes here only when a second harness
// would call it unchanged.
package harness
