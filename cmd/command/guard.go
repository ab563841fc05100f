package command

import "github.com/urfave/cli/v2"

// guardCommands are td guard and td hooks: scope checks for a session's changes.
func (r *runner) guardCommands() []*cli.Command { return nil }
