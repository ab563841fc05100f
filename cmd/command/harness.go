package command

import "github.com/urfave/cli/v2"

// harnessCommands are td hook and td onboard: td's session lifecycle mapped
// onto an agent harness's own events, and the text that tells an agent how
// to use td.
func (r *runner) harnessCommands() []*cli.Command { return nil }
