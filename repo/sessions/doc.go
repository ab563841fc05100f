// Package sessions holds td's use cases on sessions: binding to an issue,
// the lifecycle (actions, errors, stop, compaction, resume), the context a
// session is given (with its next steps as values; the command line words
// them), sending an agent to an issue, the pre-commit guard over staged
// paths, and the git hooks that add session trailers.
package sessions
