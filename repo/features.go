package repo

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"gopkg.in/yaml.v3"
)

// FeatureState is a flag's value and where it came from.
type FeatureState struct {
	Name    string `json:"name"`
	Value   bool   `json:"value"`
	Source  string `json:"source"` // env, config or default
	Default bool   `json:"default"`
	Policy  bool   `json:"policy"`
	Usage   string `json:"usage"`
	// Config is the value in config.yaml, nil when the config is silent.
	Config *bool `json:"config"`
	// EnvIgnored is the environment override td ignored because it would
	// loosen a policy flag ("TD_FEATURE_X=true"), "" when none.
	EnvIgnored string `json:"env_ignored,omitempty"`
}

// Feature resolves one flag: TD_FEATURE_<NAME> in the environment, then
// the config, then the default. The environment may set a policy flag
// only to its stricter value.
func (s *Store) Feature(name string) (FeatureState, error) {
	f, err := policy.KnownFlag(name)
	if err != nil {
		return FeatureState{}, Errorf(CodeInvalid, "%v", err)
	}
	v, src, err := policy.Resolve(name, s.Env, s.Config.Features)
	if err != nil {
		return FeatureState{}, Errorf(CodeInvalid, "%v", err)
	}
	st := FeatureState{Name: name, Value: v, Source: src, Default: f.Default, Policy: f.Policy, Usage: f.Usage,
		EnvIgnored: policy.IgnoredEnv(name, s.Env)}
	if c, ok := s.Config.Features[name]; ok {
		st.Config = &c
	}
	return st, nil
}

// Features resolves every known flag, in name order.
func (s *Store) Features() ([]FeatureState, error) {
	var out []FeatureState
	for _, f := range policy.Flags() {
		st, err := s.Feature(f.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FeatureChange is what td feature set and unset did.
type FeatureChange struct {
	// State is the flag after the change, as this process resolves it.
	State FeatureState
	// Changed is false when config.yaml already said what was asked.
	Changed bool
	// Event is the security event written for a policy flag, nil otherwise.
	Event *audit.SecurityEvent
}

// UnknownFeatures returns the keys under features: in config.yaml that name
// no flag td knows, in name order. td ignores them, so a misspelt policy
// flag would silently leave the default in force; callers warn about them.
func (s *Store) UnknownFeatures() []string {
	var out []string
	for k := range s.Config.Features {
		if _, ok := policy.LookupFlag(k); !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// UnknownFeatureVars returns the TD_FEATURE_ variables set in environ (as
// KEY=value; empty counts as unset, as for a known flag) that name no flag
// td knows, in name order: a misspelt
// override would otherwise leave the config's value in force unsaid.
func UnknownFeatureVars(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		name, ok := strings.CutPrefix(k, "TD_FEATURE_")
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		if f, known := policy.LookupFlag(strings.ToLower(name)); known && policy.EnvVar(f.Name) == k {
			continue
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// knownFeatureVars lists the TD_FEATURE_ variable of every flag.
func knownFeatureVars() string {
	var names []string
	for _, f := range policy.Flags() {
		names = append(names, policy.EnvVar(f.Name))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// SetFeature writes a flag's value into config.yaml (nil removes it, so
// the default applies again). Only an operator may change a flag; changing
// a policy flag writes a security event. The rest of config.yaml keeps its
// bytes, comments included. A bad TD_FEATURE_ value in the environment is
// refused before anything is written, since td could not report the result.
func (s *Store) SetFeature(se *Session, name string, value *bool) (FeatureChange, error) {
	f, err := policy.KnownFlag(name)
	if err != nil {
		return FeatureChange{}, Errorf(CodeInvalid, "%v", err)
	}
	if role := s.EffectiveRole(se); role != domain.RoleOperator {
		return FeatureChange{}, Errorf(CodeRefused, "only an operator may change feature flags; session %s acts as %s", se.ID, RoleNoun(role))
	}
	if _, _, err := policy.Resolve(name, s.Env, nil); err != nil {
		return FeatureChange{}, Errorf(CodeInvalid, "%v; fix or unset it first", err)
	}
	var ch FeatureChange
	err = s.Update(func(tx *Tx) error {
		data, cfg, err := s.readConfigFile()
		if err != nil {
			return err
		}
		old, had := cfg.Features[name]
		if value == nil && !had || value != nil && had && old == *value {
			s.Config = cfg
			return nil
		}
		next := map[string]bool{}
		for k, v := range cfg.Features {
			next[k] = v
		}
		if value == nil {
			delete(next, name)
		} else {
			next[name] = *value
		}
		if err := s.writeConfigKey(tx, data, "features", boolMapNode(next)); err != nil {
			return err
		}
		ch.Changed = true
		if f.Policy {
			before, after := describeFlag(old, had, f.Default), describeFlag(derefOr(value, false), value != nil, f.Default)
			e, err := s.AppendSecurityEvent(tx, se, "", audit.KindFeatureFlag, fmt.Sprintf("%s: %s -> %s", name, before, after))
			if err != nil {
				return err
			}
			ch.Event = &e
		}
		return nil
	})
	if err != nil {
		return FeatureChange{}, err
	}
	ch.State, err = s.Feature(name)
	return ch, err
}

func derefOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

func describeFlag(v, set, def bool) string {
	if !set {
		return fmt.Sprintf("unset (default %t)", def)
	}
	return fmt.Sprintf("%t", v)
}

func boolMapNode(m map[string]bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(m) == 0 {
		n.Style = yaml.FlowStyle
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n.Content = append(n.Content, markdown.Str(k), markdown.Bool(m[k]))
	}
	return n
}

// setConfigKey rewrites one top-level key of a YAML file with the
// frontmatter line-range editor, so every other line keeps its bytes.
func setConfigKey(data []byte, key string, v *yaml.Node) ([]byte, error) {
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	body := data
	if len(body) > 0 && !bytes.HasSuffix(body, []byte("\n")) {
		body = append(append([]byte{}, body...), eol...)
	}
	wrapped := append(append([]byte("---"+eol), body...), "---"+eol...)
	doc, err := markdown.Parse(wrapped)
	if err != nil {
		return nil, err
	}
	if err := doc.Front.Set(key, v); err != nil {
		return nil, err
	}
	out := doc.Bytes()
	out = bytes.TrimPrefix(out, []byte("---"+eol))
	out, ok := bytes.CutSuffix(out, []byte("---"+eol))
	if !ok {
		return nil, fmt.Errorf("unexpected layout after the edit")
	}
	if !strings.HasSuffix(string(data), "\n") && len(data) > 0 {
		out = bytes.TrimSuffix(out, []byte(eol))
	}
	return out, nil
}
