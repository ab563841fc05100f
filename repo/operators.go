package repo

import (
	"github.com/tdproject/td/markdown"
	"gopkg.in/yaml.v3"
)

// WriteOperators replaces the operators: list of config.yaml with ops,
// inside tx, and rewrites nothing else: every other line keeps its bytes,
// comments included. It decides nothing; who may change the list is the
// caller's rule. s.Config is the file as written afterwards.
func (s *Store) WriteOperators(tx *Tx, ops []string) error {
	data, _, err := s.readConfigFile()
	if err != nil {
		return err
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if len(ops) == 0 {
		n.Style = yaml.FlowStyle
	}
	for _, op := range ops {
		n.Content = append(n.Content, markdown.Str(op))
	}
	return s.writeConfigKey(tx, data, "operators", n)
}

// ReadConfig parses config.yaml as it is on disk now, for a transaction
// that must decide on the file rather than on what Open read.
func (s *Store) ReadConfig() (*Config, error) {
	_, cfg, err := s.readConfigFile()
	return cfg, err
}

// readConfigFile reads config.yaml as it is on disk now: its bytes, and
// what they parse to.
func (s *Store) readConfigFile() ([]byte, *Config, error) {
	p := s.Path(ConfigFile)
	data, err := readRegular(p, 1<<20)
	if err != nil {
		return nil, nil, s.FileError(p, err)
	}
	cfg, err := ParseConfig(s.rel(p), data)
	return data, cfg, err
}

// writeConfigKey replaces one top-level key of config.yaml (data, as read
// under the transaction's lock) with n, inside tx, keeping every other
// byte; s.Config is the file as written afterwards.
func (s *Store) writeConfigKey(tx *Tx, data []byte, key string, n *yaml.Node) error {
	p := s.Path(ConfigFile)
	out, err := setConfigKey(data, key, n)
	if err != nil {
		return Errorf(CodeRefused, "cannot rewrite %s: %v; edit %s: by hand", s.rel(p), err, key)
	}
	cfg, err := ParseConfig(s.rel(p), out)
	if err != nil {
		return err
	}
	if err := tx.WriteFile(out, ConfigFile); err != nil {
		return err
	}
	s.Config = cfg
	return nil
}
