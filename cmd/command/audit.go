package command

import "github.com/urfave/cli/v2"

// auditCommand is td audit, the parent of td audit verify.
func (r *runner) auditCommand() *cli.Command {
	return &cli.Command{
		Name:        "audit",
		Usage:       "verify td's audit records",
		Subcommands: []*cli.Command{r.auditVerifyCommand(nil)},
	}
}
