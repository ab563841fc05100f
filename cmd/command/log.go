package command

import "github.com/urfave/cli/v2"

// logCommands are td log: an issue's ledger and commits, merged by time.
func (r *runner) logCommands() []*cli.Command { return nil }
