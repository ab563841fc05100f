package command

import "github.com/urfave/cli/v2"

// statsCommand is td stats, a parent for statistics: td stats security
// is td security under another name. securityF, when not nil, replaces
// its run function.
func (r *runner) statsCommand(securityF func(*SecurityOptions) error) *cli.Command {
	security := r.securityCommand(securityF)
	security.Usage = "security events (same as td security)"
	return &cli.Command{
		Name:        "stats",
		Usage:       "statistics",
		Subcommands: []*cli.Command{security},
	}
}
