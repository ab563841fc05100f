package command

import "github.com/urfave/cli/v2"

// linkCommands are td link, unlink, links and ready: typed links between issues.
func (r *runner) linkCommands() []*cli.Command { return nil }
