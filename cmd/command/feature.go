package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

func (r *runner) featureCommand() *cli.Command {
	print := func(st repo.FeatureState) {
		r.st.printf("%-24s %-5t  %s", st.Name, st.Value, st.Source)
		if st.Source == policy.FromEnv {
			r.st.printf(" (%s)", policy.EnvVar(st.Name))
		}
		r.st.printf("\n")
	}
	warnUnknown := func(s *repo.Store) {
		for _, k := range s.UnknownFeatures() {
			r.st.warnf(".todos/config.yaml sets %q, which is not a feature flag td knows, so it has no effect; known flags: %s", k, knownFlagNames())
		}
	}
	set := func(c *cli.Context, name string, value *bool) error {
		s, se, err := r.openActor(c)
		if err != nil {
			return err
		}
		ch, err := s.SetFeature(se, name, value)
		if err != nil {
			return err
		}
		st, ev := ch.State, ch.Event
		if r.st.json {
			out := map[string]any{"feature": st, "changed": ch.Changed, "security_event": nil}
			if ev != nil {
				out["security_event"] = *ev
			}
			return r.st.emitJSON(out)
		}
		switch {
		case value == nil && !ch.Changed:
			r.st.printf("%s is not set in .todos/config.yaml; it is %t (%s).\n", st.Name, st.Value, st.Source)
		case value == nil:
			r.st.printf("%s removed from .todos/config.yaml; it is %t (%s).\n", st.Name, st.Value, st.Source)
		case !ch.Changed:
			r.st.printf("%s is already %t in .todos/config.yaml; nothing to do.\n", st.Name, *value)
		default:
			r.st.printf("%s set to %t in .todos/config.yaml.\n", st.Name, *value)
		}
		if st.Source == policy.FromEnv {
			r.st.warnf("%s=%s in the environment overrides the config for this process", policy.EnvVar(st.Name), r.getenv(policy.EnvVar(st.Name)))
		}
		if ev != nil {
			r.st.printf("Policy flag: security event recorded (%s).\n", ev.Reason)
		}
		return nil
	}
	return &cli.Command{
		Name:  "feature",
		Usage: "list, read and change feature flags",
		Description: fmt.Sprintf(`Flags live in .todos/config.yaml under features:. The environment variable
TD_FEATURE_<NAME> (1/true/on/yes or 0/false/off/no) overrides the config for
one process. Changing a policy flag writes a security event; only an operator
may change a flag.

Examples:
   td feature list
   td feature get balanced_review_policy
   td feature set balanced_review_policy false
   td feature unset balanced_review_policy
   TD_FEATURE_BALANCED_REVIEW_POLICY=false td reviewable

Known flags: %s`, knownFlags()),
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "every flag with its value and source (env, config or default)",
				Action: func(c *cli.Context) error {
					_, s, err := r.openArgs(c, 0, 0, "")
					if err != nil {
						return err
					}
					list, err := s.Features()
					if err != nil {
						return err
					}
					warnUnknown(s)
					if r.st.json {
						return r.st.emitJSON(list)
					}
					for _, st := range list {
						print(st)
					}
					return nil
				}},
			{Name: "get", Usage: "one flag's value and source", ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					a, s, err := r.openArgs(c, 1, 1, "NAME")
					if err != nil {
						return err
					}
					st, err := s.Feature(a[0])
					if err != nil {
						return err
					}
					warnUnknown(s)
					if r.st.json {
						return r.st.emitJSON(st)
					}
					print(st)
					return nil
				}},
			{Name: "set", Usage: "set a flag in the config", ArgsUsage: "NAME true|false",
				Action: func(c *cli.Context) error {
					a, err := args(c, 2, 2, "NAME true|false")
					if err != nil {
						return err
					}
					v, err := policy.ParseBool(a[1])
					if err != nil {
						return usagef("%v", err)
					}
					return set(c, a[0], &v)
				}},
			{Name: "unset", Usage: "remove a flag from the config (its default applies)", ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					a, err := args(c, 1, 1, "NAME")
					if err != nil {
						return err
					}
					return set(c, a[0], nil)
				}},
		},
	}
}

func knownFlagNames() string {
	var names []string
	for _, f := range policy.Flags() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func knownFlags() string {
	var out string
	for i, f := range policy.Flags() {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s (default %t)", f.Name, f.Default)
	}
	return out
}
