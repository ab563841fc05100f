package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
)

// CommonDir returns the absolute path of the repository's shared directory:
// the git directory itself for an ordinary clone, the main clone's for a
// linked work tree. Objects, config and hooks live there.
func (r *Repo) CommonDir() string { return r.commonDir }

// HooksDir returns the directory git runs this repository's hooks from:
// core.hooksPath when the repository's, the global or the system config sets
// it (a relative path is taken from the work tree root, where git runs hooks,
// and ~/ is the home directory), else hooks/ in the common directory, which
// linked work trees share.
func (r *Repo) HooksDir() string {
	scopes, err := r.identityScopes()
	if err == nil {
		for _, cfg := range scopes {
			v := strings.TrimSpace(configOption(cfg, "core", "", "hookspath"))
			if v == "" {
				continue
			}
			if rest, ok := strings.CutPrefix(v, "~/"); ok {
				if home, err := os.UserHomeDir(); err == nil {
					return filepath.Join(home, filepath.FromSlash(rest))
				}
			}
			return resolveFrom(r.root, filepath.FromSlash(v))
		}
	}
	return filepath.Join(r.commonDir, "hooks")
}

// Locate finds the git work tree containing dir, as Open does, and returns
// its root and the repository's common directory without opening the
// repository: for a caller that needs only where the shared directory is.
// The error wraps ErrNotRepository when there is none.
func Locate(dir string) (root, commonDir string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	root, gitDir, err := findGitDir(abs)
	if err != nil {
		return "", "", err
	}
	commonDir = gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = resolveFrom(gitDir, strings.TrimSpace(string(b)))
	}
	return root, commonDir, nil
}
