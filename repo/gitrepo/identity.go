package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ErrNoIdentity is wrapped by the error Author returns when no author name or
// email is configured.
var ErrNoIdentity = errors.New("no git identity is configured")

// Identity is a git author: a name and an email address.
type Identity struct {
	Name  string // as in user.name
	Email string // as in user.email, without angle brackets
}

// String formats the identity as git does: "Name <email>".
func (id Identity) String() string { return id.Name + " <" + id.Email + ">" }

// Author returns the identity git would record as the author of a commit made
// now. Each of name and email is taken from the first of GIT_AUTHOR_NAME
// (GIT_AUTHOR_EMAIL), author.name (author.email) and user.name (user.email),
// where each config key is looked up in the repository's config, then the
// global one (GIT_CONFIG_GLOBAL, or ~/.gitconfig and then
// $XDG_CONFIG_HOME/git/config or ~/.config/git/config), then the system one
// (GIT_CONFIG_SYSTEM or /etc/gitconfig, unless GIT_CONFIG_NOSYSTEM is set).
// EMAIL is the last resort for the email, as in git. Only a few small files
// are read.
func (r *Repo) Author() (Identity, error) {
	id := Identity{Name: os.Getenv("GIT_AUTHOR_NAME"), Email: os.Getenv("GIT_AUTHOR_EMAIL")}
	if id.Name != "" && id.Email != "" {
		return id, nil
	}
	scopes, err := r.identityScopes()
	if err != nil {
		return Identity{}, fmt.Errorf("resolve git author: %w", err)
	}
	for _, section := range []string{"author", "user"} {
		for _, cfg := range scopes {
			if id.Name == "" {
				id.Name = configOption(cfg, section, "", "name")
			}
			if id.Email == "" {
				id.Email = configOption(cfg, section, "", "email")
			}
		}
	}
	if id.Email == "" {
		id.Email = os.Getenv("EMAIL")
	}
	switch {
	case id.Name == "" && id.Email == "":
		return Identity{}, fmt.Errorf("%w: set it with git config user.name \"Your Name\" and git config user.email you@example.com, or with GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL", ErrNoIdentity)
	case id.Name == "":
		return Identity{}, fmt.Errorf("%w: the author name is missing; set it with git config user.name \"Your Name\" or GIT_AUTHOR_NAME", ErrNoIdentity)
	case id.Email == "":
		return Identity{}, fmt.Errorf("%w: the author email is missing; set it with git config user.email you@example.com or GIT_AUTHOR_EMAIL", ErrNoIdentity)
	}
	return id, nil
}

// identityScopes reads the repository, global and system config files, most
// specific first, skipping those that do not exist.
func (r *Repo) identityScopes() ([]*format.Config, error) {
	var paths []string
	paths = append(paths, r.configPath())
	paths = append(paths, globalConfigPaths()...)
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			paths = append(paths, p)
		} else {
			paths = append(paths, "/etc/gitconfig")
		}
	}
	var scopes []*format.Config
	for _, p := range paths {
		cfg, err := readConfigFile(p)
		if err != nil {
			return nil, err
		}
		if cfg != nil {
			scopes = append(scopes, cfg)
		}
	}
	return scopes, nil
}

// globalConfigPaths lists the global config files in git's order of
// precedence: ~/.gitconfig wins over the XDG file.
func globalConfigPaths() []string {
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		return []string{p}
	}
	var paths []string
	home, _ := os.UserHomeDir()
	if home != "" {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "config"))
	} else if home != "" {
		paths = append(paths, filepath.Join(home, ".config", "git", "config"))
	}
	return paths
}
