package command

import "github.com/urfave/cli/v2"

// VersionOptions are td version's inputs: it takes none.
type VersionOptions struct{}

// versionCommand is td version (Run answers td version, td --version and
// td -v alone before parsing; this is td version with flags, --json
// among them). runF, when not nil, replaces runVersion.
func (r *runner) versionCommand(runF func(*VersionOptions) error) *cli.Command {
	return &cli.Command{Name: "version", Usage: "print td's version", Action: func(*cli.Context) error {
		o := &VersionOptions{}
		if runF != nil {
			return runF(o)
		}
		return r.runVersion(o)
	}}
}

// runVersion prints td's version.
func (r *runner) runVersion(*VersionOptions) error {
	return r.st.export(func() any { return map[string]string{"version": Version} }, func() error {
		r.st.printf("td %s\n", Version)
		return nil
	})
}
