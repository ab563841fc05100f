package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/tdproject/td/repo/harness"
)

// Claude Code runs a project's hooks once its user accepted the folder's
// trust dialog, which it records in ~/.claude.json ($CLAUDE_CONFIG_DIR/
// .claude.json when that is set) as projects."<folder>".
// hasTrustDialogAccepted; disableAllHooks in any settings file turns
// every hook off.

// ConfigDirVar moves the directory Claude Code keeps its user files in.
const ConfigDirVar = "CLAUDE_CONFIG_DIR"

// Readiness says whether Claude Code will run td's hooks in the work tree
// at root.
func Readiness(root string, home harness.Home) (*harness.Readiness, error) {
	r, err := Config().Readiness(root)
	if err != nil || !r.Installed {
		return r, err
	}
	accept := "start claude in this work tree and accept the folder's trust dialog"
	for _, f := range []string{SettingsFile, ".claude/settings.local.json"} {
		var set struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if harness.ReadJSONC(filepath.Join(root, filepath.FromSlash(f)), &set) == nil && set.DisableAllHooks {
			r.Runs = harness.RunsNo
			r.Notes = append(r.Notes, fmt.Sprintf("%s sets disableAllHooks: Claude Code runs no hooks while it does", f))
			return r, nil
		}
	}
	path := ""
	if d := home(ConfigDirVar); d != "" {
		path = filepath.Join(d, ".claude.json")
	} else if h := home("HOME"); h != "" {
		path = filepath.Join(h, ".claude.json")
	}
	if path == "" {
		r.Notes = append(r.Notes, "td cannot find Claude Code's files (no HOME): "+accept)
		return r, nil
	}
	var state struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	err = harness.ReadJSONC(path, &state)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Notes = append(r.Notes, fmt.Sprintf("Claude Code has not run on this machine (no %s): %s", home.Show(path), accept))
	case err != nil:
		r.Notes = append(r.Notes, fmt.Sprintf("td cannot read %s (%v): %s", home.Show(path), err, accept))
	case state.Projects[filepath.Clean(root)].HasTrustDialogAccepted:
		r.Runs = harness.RunsYes
	default:
		r.Runs = harness.RunsNo
		r.Notes = append(r.Notes, fmt.Sprintf("Claude Code's user has not accepted the trust dialog for this folder (%s): %s", home.Show(path), accept))
	}
	return r, nil
}
