package command

import "github.com/urfave/cli/v2"

// FeatureGetOptions are td feature get's inputs, as parsed from the
// command line.
type FeatureGetOptions struct {
	// Name is the flag to read.
	Name string
}

// featureGetCommand is td feature get. runF, when not nil, replaces
// runFeatureGet.
func (r *runner) featureGetCommand(runF func(*FeatureGetOptions) error) *cli.Command {
	return &cli.Command{Name: "get", Usage: "one flag's value and source", ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			a, err := args(c, 1, 1, "NAME")
			if err != nil {
				return err
			}
			o := &FeatureGetOptions{Name: a[0]}
			if runF != nil {
				return runF(o)
			}
			return r.runFeatureGet(o)
		}}
}

// runFeatureGet prints one flag's value and source.
func (r *runner) runFeatureGet(o *FeatureGetOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	st, err := s.Feature(o.Name)
	if err != nil {
		return err
	}
	r.warnUnknownFeatures(s)
	return r.st.export(func() any { return st }, func() error {
		r.printFeature(st)
		return nil
	})
}
