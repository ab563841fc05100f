package command

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// ManOptions are td man's inputs (none).
type ManOptions struct{}

// manCommand is td man. runF, when not nil, replaces runMan.
func (r *runner) manCommand(runF func(*ManOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print td's manual page (roff), generated from the command definitions",
		Description: `Prints the manual page in roff, made from the same definitions as td help:
every command with its flags. Install it where man looks:

   td man > ~/.local/share/man/man1/td.1

Examples:
   td man | man -l -`,
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &ManOptions{}
			if runF != nil {
				return runF(o)
			}
			return r.runMan(c.App)
		},
	}
}

// runMan prints the manual page of app.
func (r *runner) runMan(app *cli.App) error {
	page, err := app.ToManWithSection(1)
	if err != nil {
		return fmt.Errorf("generate the manual page: %w", err)
	}
	return r.st.export(func() any { return map[string]string{"man": page} }, func() error {
		r.st.printf("%s", page)
		return nil
	})
}
