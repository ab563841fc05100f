package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ConfigValue returns the value of section.subsection.key in the repository's
// own configuration (.git/config), or "" when it is not set or the file cannot
// be read. Section and key names are case-insensitive, subsection names are
// not, as in git. When a key is set several times the last value wins.
func (r *Repo) ConfigValue(section, subsection, key string) string {
	cfg, err := readConfigFile(r.configPath())
	if err != nil || cfg == nil {
		return ""
	}
	return configOption(cfg, section, subsection, key)
}

// SetConfigValue sets section.subsection.key to value in the repository's own
// configuration (.git/config), replacing any earlier values of the key. The
// file is rewritten through go-git's config codec under git's config.lock, so
// concurrent git commands never see a torn file; comments in the file are not
// preserved.
func (r *Repo) SetConfigValue(section, subsection, key, value string) error {
	if err := validConfigName(section, key); err != nil {
		return fmt.Errorf("set git config %s: %w", configKeyName(section, subsection, key), err)
	}
	if strings.ContainsAny(subsection, "\n\x00") {
		return fmt.Errorf("set git config %s: the subsection contains a newline or NUL", configKeyName(section, subsection, key))
	}
	if err := r.setConfigValues(section, subsection, [][2]string{{key, value}}); err != nil {
		return fmt.Errorf("set git config %s: %w", configKeyName(section, subsection, key), err)
	}
	return nil
}

// SetConfigValues sets several keys of one section in a single write. When
// the section is new it is appended as text, leaving the rest of the file,
// comments included, byte for byte.
func (r *Repo) SetConfigValues(section, subsection string, kvs [][2]string) error {
	for _, kv := range kvs {
		if err := validConfigName(section, kv[0]); err != nil {
			return fmt.Errorf("set git config %s: %w", configKeyName(section, subsection, kv[0]), err)
		}
	}
	if strings.ContainsAny(subsection, "\n\x00") {
		return fmt.Errorf("set git config section %s: the subsection contains a newline or NUL", section)
	}
	if err := r.setConfigValues(section, subsection, kvs); err != nil {
		return fmt.Errorf("set git config section %s.%s: %w", section, subsection, err)
	}
	return nil
}

func (r *Repo) setConfigValues(section, subsection string, kvs [][2]string) error {
	path := r.configPath()
	lock, err := r.acquireLock(path)
	if err != nil {
		return err
	}
	defer lock.release()
	cfg, err := readConfigFile(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if cfg != nil && !hasSection(cfg, section, subsection) {
		// A new section is appended as text, so the user's config (comments
		// and layout included) stays byte for byte; go-git's encoder would
		// drop its comments.
		old, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read git config: %w", err)
		}
		add := format.New()
		for _, kv := range kvs {
			add.SetOption(section, subsection, kv[0], kv[1])
		}
		buf.Write(old)
		if len(old) > 0 && old[len(old)-1] != '\n' {
			buf.WriteByte('\n')
		}
		if err := format.NewEncoder(&buf).Encode(add); err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
	} else {
		if cfg == nil {
			cfg = format.New()
		}
		for _, kv := range kvs {
			cfg.SetOption(section, subsection, kv[0], kv[1])
		}
		if err := format.NewEncoder(&buf).Encode(cfg); err != nil {
			return fmt.Errorf("encode %s: %w", path, err)
		}
	}
	mode := fs.FileMode(0o666)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := lock.f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", lock.path, err)
	}
	return lock.commit(buf.Bytes())
}

// hasSection reports whether cfg already has the section (or, with a
// subsection name, that subsection).
func hasSection(cfg *format.Config, section, subsection string) bool {
	if !cfg.HasSection(section) {
		return false
	}
	if subsection == "" {
		return true
	}
	return cfg.Section(section).HasSubsection(subsection)
}

// configPath returns the repository's shared config file (the main clone's for
// a linked work tree).
func (r *Repo) configPath() string { return filepath.Join(r.commonDir, "config") }

// readConfigFile parses a git config file with go-git's codec. A missing file
// yields nil and no error.
func readConfigFile(path string) (*format.Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	cfg := format.New()
	if err := format.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("parse git config %s: %w", path, err)
	}
	return cfg, nil
}

// configOption returns the last value of section.subsection.key in cfg
// without adding the section to it.
func configOption(cfg *format.Config, section, subsection, key string) string {
	if !cfg.HasSection(section) {
		return ""
	}
	s := cfg.Section(section)
	if subsection == "" {
		return s.Option(key)
	}
	if !s.HasSubsection(subsection) {
		return ""
	}
	return s.Subsection(subsection).Option(key)
}

// validConfigName checks section and key names as git does: alphanumeric
// characters and '-', sections may also hold '.', keys start with a letter.
func validConfigName(section, key string) error {
	if section == "" {
		return errors.New("the section name is empty")
	}
	for _, c := range section {
		if !isAlnum(c) && c != '-' && c != '.' {
			return fmt.Errorf("the section name %q may only hold letters, digits, '-' and '.'", section)
		}
	}
	if key == "" {
		return errors.New("the key name is empty")
	}
	for i, c := range key {
		if !isAlnum(c) && (c != '-' || i == 0) || i == 0 && c >= '0' && c <= '9' {
			return fmt.Errorf("the key name %q must start with a letter and hold only letters, digits and '-'", key)
		}
	}
	return nil
}

func isAlnum(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// configKeyName formats a key as git config prints it.
func configKeyName(section, subsection, key string) string {
	if subsection == "" {
		return section + "." + key
	}
	return section + "." + subsection + "." + key
}
