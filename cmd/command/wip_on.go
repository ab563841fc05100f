//go:build tdwip

package command

import "github.com/urfave/cli/v2"

func (r *runner) newCommands() []*cli.Command {
	return append([]*cli.Command{r.todoCommand(), r.fmtCommand(), r.statusCommand()}, append(r.workflowCommands(),
		r.reviewableCommand(), r.featureCommand(), r.securityCommand(), r.statsCommand(), r.auditCommand())...)
}
