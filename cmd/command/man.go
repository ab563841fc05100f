package command

import (
	_ "embed"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

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

// runMan prints the manual page, its title line dated.
func (r *runner) runMan() error {
	date, err := r.manDate()
	if err != nil {
		return err
	}
	page := strings.Replace(manPage, ".TH td 1\n", fmt.Sprintf(".TH TD 1 %s \"td %s\" \"td manual\"\n", date, Version), 1)
	return r.st.export(func() any { return map[string]string{"man": page} }, func() error {
		r.st.printf("%s", page)
		return nil
	})
}

// manDate is the date on the manual page's title line (mandoc and man
// warn without one): SOURCE_DATE_EPOCH for a reproducible build, else the
// time of the commit td was built from, else td's clock (TD_NOW pins it).
func (r *runner) manDate() (string, error) {
	const layout = "2006-01-02"
	if v := r.getenv("SOURCE_DATE_EPOCH"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Unix(n, 0).UTC().Format(layout), nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return t.UTC().Format(layout), nil
				}
			}
		}
	}
	now, err := r.now()
	if err != nil {
		return "", err
	}
	return now().UTC().Format(layout), nil
}
