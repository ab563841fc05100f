package command

import "github.com/urfave/cli/v2"

// mcpCommands are td mcp: td's todo and issue commands served to agents
// over the Model Context Protocol.
func (r *runner) mcpCommands() []*cli.Command { return nil }
