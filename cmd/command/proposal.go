package command

import "github.com/urfave/cli/v2"

// proposalCommands are td todo propose, accept and reject: subagent proposals to the bound issue's list.
func (r *runner) proposalCommands() []*cli.Command { return nil }
