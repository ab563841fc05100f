package command

import (
	_ "embed"

	"github.com/urfave/cli/v2"
)

// manPage is td's manual page, generated from the command definitions by
// go generate (TestManPage fails when it is not what they make now), so
// that urfave/cli's man page writer and the markdown library under it
// stay out of td: built with -tags urfave_cli_no_docs, td does not link
// them, and every command starts without their initialisation.
//
//go:generate env TD_UPDATE_MAN=1 go test -run ^TestManPage$ .
//go:embed td.1
var manPage string

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
			return r.runMan()
		},
	}
}

// runMan prints the manual page.
func (r *runner) runMan() error {
	return r.st.export(func() any { return map[string]string{"man": manPage} }, func() error {
		r.st.printf("%s", manPage)
		return nil
	})
}
