package command

import (
	"github.com/tdproject/td/policy"
	"github.com/urfave/cli/v2"
)

// FeatureSetOptions are td feature set's inputs, as parsed from the
// command line.
type FeatureSetOptions struct {
	// Session is --session: the session to act as ("" for the default).
	Session string
	// Name is the flag to set and Value its new value.
	Name  string
	Value bool
}

// featureSetCommand is td feature set. runF, when not nil, replaces
// runFeatureSet.
func (r *runner) featureSetCommand(runF func(*FeatureSetOptions) error) *cli.Command {
	return &cli.Command{Name: "set", Usage: "set a flag in the config", ArgsUsage: "NAME true|false",
		Action: func(c *cli.Context) error {
			a, err := args(c, 2, 2, "NAME true|false")
			if err != nil {
				return err
			}
			v, err := policy.ParseBool(a[1])
			if err != nil {
				return usagef("%v", err)
			}
			o := &FeatureSetOptions{Session: c.String("session"), Name: a[0], Value: v}
			if runF != nil {
				return runF(o)
			}
			return r.runFeatureSet(o)
		}}
}

// runFeatureSet sets the flag in the config.
func (r *runner) runFeatureSet(o *FeatureSetOptions) error {
	v := o.Value
	return r.changeFeature(o.Session, o.Name, &v)
}
