//go:build !urfave_cli_no_docs

package command

import (
	"os"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestManPage checks that the manual page td embeds is the one the
// command definitions make now; with TD_UPDATE_MAN=1 (go generate) it
// writes it.
func TestManPage(t *testing.T) {
	// Made as td man made it when it ran urfave/cli's writer: from the
	// app as it runs, set up with its help flags and commands.
	app := testApp()
	app.Flags = append(app.Flags, cli.HelpFlag)
	var page string
	var err error
	findCommand(app.Commands, "man").Action = func(c *cli.Context) error {
		page, err = c.App.ToManWithSection(1)
		return err
	}
	if runErr := app.Run([]string{"td", "man"}); runErr != nil {
		t.Fatal(runErr)
	}
	if page == "" {
		t.Fatal("no manual page made")
	}
	if os.Getenv("TD_UPDATE_MAN") != "" {
		if err := os.WriteFile("td.1", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if page != manPage {
		t.Error("td.1 is not the manual page the command definitions make: run go generate ./cmd/command")
	}
}
