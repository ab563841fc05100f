package command

import (
	"github.com/urfave/cli/v2"
)

// runCommand parses argv (without the program name) with cmd as td's only
// command, the way Run would: global flags, usage errors and argument
// order as td's. A test gives cmd a run function that records its
// Options, so parsing is tested without a repository.
func runCommand(r *runner, cmd *cli.Command, argv []string) error {
	app := &cli.App{
		Name:                      "td",
		Flags:                     globalFlags(),
		Writer:                    r.st.out,
		ErrWriter:                 r.st.errOut,
		Reader:                    r.st.in,
		Commands:                  []*cli.Command{cmd},
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return &usageError{err.Error()} }
	setUsageHandlers(cmd)
	r.recordRuns(cmd)
	return app.Run(reorderArgs(app, append([]string{"td"}, argv...)))
}
