// Package policy holds td's rules as pure functions over plain facts: who
// may approve or close an issue, who may move a todo from one status to
// another, which sessions may change todos at all, and how feature flags
// resolve. It reads no files, runs no git and keeps no clock; the caller
// gathers the facts and records what the decision asks it to record.
package policy
