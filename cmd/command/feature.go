package command

import (
	"fmt"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo"
	"github.com/urfave/cli/v2"
)

// featureCommand is td feature, the parent of td feature list, get, set
// and unset.
func (r *runner) featureCommand() *cli.Command {
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
			r.featureListCommand(nil),
			r.featureGetCommand(nil),
			r.featureSetCommand(nil),
			r.featureUnsetCommand(nil),
		},
	}
}

// printFeature prints one flag: its name, value and where the value
// comes from.
func (r *runner) printFeature(st repo.FeatureState) {
	r.st.printf("%-24s %-5t  %s", st.Name, st.Value, st.Source)
	if st.Source == policy.FromEnv {
		r.st.printf(" (%s)", policy.EnvVar(st.Name))
	}
	if st.EnvIgnored != "" {
		r.st.printf(" (%s ignored: the environment may make a policy flag only stricter)", st.EnvIgnored)
	}
	r.st.printf("\n")
}

// warnUnknownFeatures warns about keys under features: in the config
// that name no flag td knows.
func (r *runner) warnUnknownFeatures(s *repo.Store) {
	for _, k := range s.UnknownFeatures() {
		r.st.warnf(".todos/config.yaml sets %q, which is not a feature flag td knows, so it has no effect; known flags: %s", k, knownFlagNames())
	}
}

// changeFeature sets the flag in the config to value, or removes it when
// value is nil, and says what that changed: td feature set and unset.
func (r *runner) changeFeature(session, name string, value *bool) error {
	s, se, err := r.openSession(session)
	if err != nil {
		return err
	}
	ch, err := s.SetFeature(se, name, value)
	if err != nil {
		return err
	}
	st, ev := ch.State, ch.Event
	return r.st.export(func() any {
		out := map[string]any{"feature": st, "changed": ch.Changed, "security_event": nil}
		if ev != nil {
			out["security_event"] = *ev
		}
		return out
	}, func() error {
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
	})
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
