package policy

import (
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	f, ok := LookupFlag(BalancedReviewPolicy)
	if !ok || !f.Default || !f.Policy || f.Usage == "" {
		t.Fatalf("balanced_review_policy = %+v, %v; want a documented policy flag, default true", f, ok)
	}
	flags := Flags()
	flags[0].Default = false
	if !Flags()[0].Default {
		t.Fatal("changing the slice Flags returned changed the next call's answer")
	}
	if _, ok := LookupFlag("nope"); ok {
		t.Fatal("LookupFlag found an unknown flag")
	}
	if got := EnvVar(BalancedReviewPolicy); got != "TD_FEATURE_BALANCED_REVIEW_POLICY" {
		t.Fatalf("EnvVar = %q", got)
	}
	a, ok := LookupFlag(AgentApproval)
	if !ok || !a.Default || !a.Policy || a.Strict || a.Usage == "" {
		t.Fatalf("agent_approval = %+v, %v; want a documented policy flag, default true, stricter when false", a, ok)
	}
}

func TestParseBool(t *testing.T) {
	for _, s := range []string{"1", "true", "TRUE", "On", "yes", " yes "} {
		if v, err := ParseBool(s); err != nil || !v {
			t.Errorf("ParseBool(%q) = %v, %v; want true", s, v, err)
		}
	}
	for _, s := range []string{"0", "false", "False", "OFF", "no", "No"} {
		if v, err := ParseBool(s); err != nil || v {
			t.Errorf("ParseBool(%q) = %v, %v; want false", s, v, err)
		}
	}
	for _, s := range []string{"", "2", "y", "enabled", "truee"} {
		if _, err := ParseBool(s); err == nil {
			t.Errorf("ParseBool(%q) accepted it", s)
		}
	}
}

func TestIgnoredEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "TD_FEATURE_BALANCED_REVIEW_POLICY" {
				return v
			}
			return ""
		}
	}
	for raw, want := range map[string]string{
		"":      "",
		"true":  "TD_FEATURE_BALANCED_REVIEW_POLICY=true",
		" on ":  "TD_FEATURE_BALANCED_REVIEW_POLICY=on",
		"false": "",
		"maybe": "",
	} {
		if got := IgnoredEnv(BalancedReviewPolicy, env(raw)); got != want {
			t.Errorf("IgnoredEnv with %q = %q, want %q", raw, got, want)
		}
	}
	if got := IgnoredEnv("turbo_mode", env("true")); got != "" {
		t.Errorf("unknown flag: %q", got)
	}
}

func TestResolve(t *testing.T) {
	envOf := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	const envVar = "TD_FEATURE_BALANCED_REVIEW_POLICY"
	rows := []struct {
		name    string
		flag    string
		env     func(string) string
		config  map[string]bool
		value   bool
		source  string
		errWant string
	}{
		{name: "default", flag: BalancedReviewPolicy, value: true, source: FromDefault},
		{name: "nil env, empty config", flag: BalancedReviewPolicy, env: envOf(nil), config: map[string]bool{}, value: true, source: FromDefault},
		{name: "config beats default", flag: BalancedReviewPolicy, config: map[string]bool{BalancedReviewPolicy: false}, value: false, source: FromConfig},
		{name: "env may not loosen a policy flag", flag: BalancedReviewPolicy, env: envOf(map[string]string{envVar: "on"}), config: map[string]bool{BalancedReviewPolicy: false}, value: false, source: FromConfig},
		{name: "env may not loosen the default either", flag: BalancedReviewPolicy, env: envOf(map[string]string{envVar: "on"}), value: true, source: FromDefault},
		{name: "env may make a policy flag stricter", flag: BalancedReviewPolicy, env: envOf(map[string]string{envVar: "off"}), config: map[string]bool{BalancedReviewPolicy: true}, value: false, source: FromEnv},
		{name: "env off beats default", flag: BalancedReviewPolicy, env: envOf(map[string]string{envVar: "FALSE"}), value: false, source: FromEnv},
		{name: "empty env is unset", flag: BalancedReviewPolicy, env: envOf(map[string]string{envVar: " "}), config: map[string]bool{BalancedReviewPolicy: false}, value: false, source: FromConfig},
		{name: "agent_approval: default on", flag: AgentApproval, value: true, source: FromDefault},
		{name: "agent_approval: config off", flag: AgentApproval, config: map[string]bool{AgentApproval: false}, value: false, source: FromConfig},
		{name: "agent_approval: env may turn it off", flag: AgentApproval, env: envOf(map[string]string{"TD_FEATURE_AGENT_APPROVAL": "0"}), value: false, source: FromEnv},
		{name: "agent_approval: env may not turn it on", flag: AgentApproval, env: envOf(map[string]string{"TD_FEATURE_AGENT_APPROVAL": "yes"}), config: map[string]bool{AgentApproval: false}, value: false, source: FromConfig},
		{
			name:    "bad env value",
			flag:    BalancedReviewPolicy,
			env:     envOf(map[string]string{envVar: "maybe"}),
			errWant: `TD_FEATURE_BALANCED_REVIEW_POLICY="maybe" is not a boolean: use 1/true/on/yes or 0/false/off/no`,
		},
		{
			name:    "unknown flag",
			flag:    "turbo_mode",
			config:  map[string]bool{"turbo_mode": true},
			errWant: `unknown feature flag "turbo_mode"; known flags: balanced_review_policy, agent_approval`,
		},
		{
			name:    "names are exact",
			flag:    "BALANCED_REVIEW_POLICY",
			errWant: `unknown feature flag "BALANCED_REVIEW_POLICY"; known flags: balanced_review_policy, agent_approval`,
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			v, src, err := Resolve(row.flag, row.env, row.config)
			if row.errWant != "" {
				if err == nil || err.Error() != row.errWant {
					t.Fatalf("Resolve error = %v; want %q", err, row.errWant)
				}
				return
			}
			if err != nil || v != row.value || src != row.source {
				t.Fatalf("Resolve = (%v, %q, %v); want (%v, %q)", v, src, err, row.value, row.source)
			}
			if strings.TrimSpace(src) == "" {
				t.Fatal("empty source")
			}
		})
	}
}

func TestKnownFlag(t *testing.T) {
	if f, err := KnownFlag(BalancedReviewPolicy); err != nil || f.Name != BalancedReviewPolicy || !f.Default {
		t.Fatalf("KnownFlag(%q) = %+v, %v", BalancedReviewPolicy, f, err)
	}
	_, err := KnownFlag("balanced_reveiw_policy")
	if err == nil || err.Error() != `unknown feature flag "balanced_reveiw_policy"; known flags: balanced_review_policy, agent_approval` {
		t.Fatalf("unknown flag error = %v", err)
	}
}
