package policy

import (
	"fmt"
	"strings"
)

// BalancedReviewPolicy names the flag that selects the balanced review policy
// (creator exception) over the strict one.
const BalancedReviewPolicy = "balanced_review_policy"

// AgentApproval names the flag that lets an agent approve under the review
// table as a person may; false makes a team require a person for every
// approval.
const AgentApproval = "agent_approval"

// Where a flag's value came from, as Resolve reports it.
const (
	FromEnv     = "env"
	FromConfig  = "config"
	FromDefault = "default"
)

// Flag describes one feature flag td knows.
type Flag struct {
	Name    string
	Default bool
	// Policy marks a flag that changes a security rule; changing it writes a
	// security event.
	Policy bool
	// Strict is a policy flag's stricter value. The environment may set a
	// policy flag only to it: a variable anyone can set must not loosen
	// what the config, changed only by an audited td feature set, says.
	Strict bool
	Usage  string
}

// Flags returns every feature flag td knows, in the order td feature list
// shows them. It builds a fresh slice each call, so callers may keep it.
func Flags() []Flag {
	return []Flag{{
		Name:    BalancedReviewPolicy,
		Default: true,
		Policy:  true,
		Strict:  false,
		Usage:   "let an issue's creator approve another session's work with --reason (audited); false restores the strict policy that blocks every involved session",
	}, {
		Name:    AgentApproval,
		Default: true,
		Policy:  true,
		Strict:  false,
		Usage:   "let an agent approve under the review table as a person may (an issue with acceptance criteria still needs an operator); false requires a person for every approval",
	}}
}

// LookupFlag returns the flag called name.
func LookupFlag(name string) (Flag, bool) {
	for _, f := range Flags() {
		if f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}

// KnownFlag returns the flag called name, or an error that lists the
// known flags.
func KnownFlag(name string) (Flag, error) {
	if f, ok := LookupFlag(name); ok {
		return f, nil
	}
	return Flag{}, fmt.Errorf("unknown feature flag %q; known flags: %s", name, knownFlagNames())
}

// EnvVar returns the environment variable that overrides the flag called
// name: TD_FEATURE_ and the name in upper case.
func EnvVar(name string) string {
	return "TD_FEATURE_" + strings.ToUpper(name)
}

// ParseBool reads a flag value: 1, true, on or yes, and 0, false, off or no,
// in any case, surrounding spaces ignored.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "on", "yes":
		return true, nil
	case "0", "false", "off", "no":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean: use 1/true/on/yes or 0/false/off/no", s)
}

// Resolve gives the value of the flag called name and where it came from:
// "env" when its TD_FEATURE_ variable is set (env reads the environment and
// may be nil), else "config" when config sets it, else "default". Every error
// is bad input: an unknown flag, or an environment value that is not a boolean.
func Resolve(name string, env func(string) string, config map[string]bool) (value bool, source string, err error) {
	flag, err := KnownFlag(name)
	if err != nil {
		return false, "", err
	}
	ev, set, err := envValue(name, env)
	if err != nil {
		return false, "", err
	}
	if set && (!flag.Policy || ev == flag.Strict) {
		return ev, FromEnv, nil
	}
	if v, ok := config[name]; ok {
		return v, FromConfig, nil
	}
	return flag.Default, FromDefault, nil
}

// IgnoredEnv returns the environment override of a policy flag that Resolve
// ignored because it would loosen the policy ("TD_FEATURE_X=true"), or "".
func IgnoredEnv(name string, env func(string) string) string {
	flag, err := KnownFlag(name)
	if err != nil || !flag.Policy {
		return ""
	}
	v, set, err := envValue(name, env)
	if err != nil || !set || v == flag.Strict {
		return ""
	}
	return fmt.Sprintf("%s=%s", EnvVar(name), strings.TrimSpace(env(EnvVar(name))))
}

// envValue reads a flag's environment override; set is false when the
// variable is unset or blank.
func envValue(name string, env func(string) string) (v, set bool, err error) {
	if env == nil {
		return false, false, nil
	}
	raw := env(EnvVar(name))
	if strings.TrimSpace(raw) == "" {
		return false, false, nil
	}
	v, err = ParseBool(raw)
	if err != nil {
		return false, false, fmt.Errorf("%s=%q is not a boolean: use 1/true/on/yes or 0/false/off/no", EnvVar(name), raw)
	}
	return v, true, nil
}

func knownFlagNames() string {
	var names []string
	for _, f := range Flags() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}
