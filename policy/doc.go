// Package policy holds td's rules as pure functions over plain facts: who
// may approve or close an issue (the review table, judged per actor: a
// session's git identity and agent path, so a person's other sessions are
// that person; then who may sign off at all: an operator for acceptance
// criteria, a person when agent_approval is off, never a subagent),
// whether an issue may close as done over open acceptance criteria, what a
// command run as an agent session may never do (start or use a person's
// session), who may move a todo from one status to another, which sessions
// may change todos at all, what text may reach a terminal, and how feature
// flags resolve (the environment may make a policy flag only stricter). It
// reads no files, runs no git and keeps no clock; the caller gathers the
// facts and records what the decision asks it to record.
package policy
