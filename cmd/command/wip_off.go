//go:build !tdwip

package command

import "github.com/urfave/cli/v2"

func (r *runner) newCommands() []*cli.Command           { return nil }
func (r *runner) bindCommands() []*cli.Command          { return nil }
func (r *runner) reviewableAction(c *cli.Context) error { return nil }
