package command

import "github.com/urfave/cli/v2"

// FeatureListOptions are td feature list's inputs: it takes none.
type FeatureListOptions struct{}

// featureListCommand is td feature list. runF, when not nil, replaces
// runFeatureList.
func (r *runner) featureListCommand(runF func(*FeatureListOptions) error) *cli.Command {
	return &cli.Command{Name: "list", Usage: "every flag with its value and source (env, config or default)",
		Action: func(c *cli.Context) error {
			if _, err := args(c, 0, 0, ""); err != nil {
				return err
			}
			o := &FeatureListOptions{}
			if runF != nil {
				return runF(o)
			}
			return r.runFeatureList(o)
		}}
}

// runFeatureList prints every flag with its value and source.
func (r *runner) runFeatureList(*FeatureListOptions) error {
	s, err := r.openStore()
	if err != nil {
		return err
	}
	list, err := s.Features()
	if err != nil {
		return err
	}
	r.warnUnknownFeatures(s)
	return r.st.export(func() any { return list }, func() error {
		for _, st := range list {
			r.printFeature(st)
		}
		return nil
	})
}
