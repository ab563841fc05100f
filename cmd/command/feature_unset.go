package command

import "github.com/urfave/cli/v2"

// FeatureUnsetOptions are td feature unset's inputs, as parsed from the
// command line.
type FeatureUnsetOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Name is the flag to remove from the config.
	Name string
}

// featureUnsetCommand is td feature unset. runF, when not nil, replaces
// runFeatureUnset.
func (r *runner) featureUnsetCommand(runF func(*FeatureUnsetOptions) error) *cli.Command {
	return &cli.Command{Name: "unset", Usage: "remove a flag from the config (its default applies)", ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "NAME")
			if err != nil {
				return err
			}
			o := &FeatureUnsetOptions{Session: c.String("session"), Name: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runFeatureUnset(o)
		}}
}

// runFeatureUnset removes the flag from the config: its default applies.
func (r *runner) runFeatureUnset(o *FeatureUnsetOptions) error {
	return r.changeFeature(o.Session, o.Name, nil)
}
