package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// The Gemini CLI runs a project's hooks only in a folder its user trusts
// (folder trust is on by default): ~/.gemini/trustedFolders.json (or the
// file GEMINI_CLI_TRUSTED_FOLDERS_PATH names) maps folders to
// TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST, the longest match winning,
// and GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder. It also
// fingerprints a project's hooks by name and command in
// ~/.gemini/trusted_hooks.json: a hook it has not seen (a new one, or one
// whose command changed) gets a warning at the next start, after which it
// is recorded. The user's settings may turn hooks off altogether
// (hooksConfig.enabled) or one by one (hooksConfig.disabled).

// Environment variables the Gemini CLI reads its trust from.
const (
	TrustedFoldersVar = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"
	TrustWorkspaceVar = "GEMINI_CLI_TRUST_WORKSPACE"
	// HomeVar moves the directory Gemini keeps its user files in.
	HomeVar = "GEMINI_CLI_HOME"
)

// userSettings is the part of ~/.gemini/settings.json (and the project's)
// td reads.
type userSettings struct {
	Security struct {
		FolderTrust struct {
			Enabled *bool `json:"enabled"`
		} `json:"folderTrust"`
	} `json:"security"`
	HooksConfig struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	} `json:"hooksConfig"`
}

// Readiness says whether the Gemini CLI will run td's hooks in the work
// tree at root: td's hooks in .gemini/settings.json, the folder trusted,
// hooks not turned off, and td's commands among those Gemini has seen.
func Readiness(root string, home harness.Home) (*harness.Readiness, error) {
	r, err := Config().Readiness(root)
	if err != nil || !r.Installed {
		return r, err
	}
	dir := home.Dir("", ".gemini")
	if h := home(HomeVar); h != "" {
		dir = filepath.Join(h, ".gemini")
	}
	trust := "start gemini in this work tree and trust the folder when it asks (or add it with /permissions)"
	if dir == "" {
		r.Notes = append(r.Notes, "td cannot find the Gemini CLI's files (no HOME): "+trust)
		return r, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		r.Notes = append(r.Notes, fmt.Sprintf("the Gemini CLI has not run on this machine (no %s): %s", home.Show(dir), trust))
		return r, nil
	}
	var user, project userSettings
	readSettings := func(path string, v *userSettings) bool {
		err := harness.ReadJSONC(path, v)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.Notes = append(r.Notes, fmt.Sprintf("td cannot read %s (%v)", home.Show(path), err))
			return false
		}
		return true
	}
	ok := readSettings(filepath.Join(dir, "settings.json"), &user)
	ok = readSettings(filepath.Join(root, filepath.FromSlash(ConfigFile)), &project) && ok
	r.Runs = harness.RunsYes
	if !ok {
		r.Runs = harness.RunsUnknown
	}
	for _, s := range []userSettings{user, project} {
		if e := s.HooksConfig.Enabled; e != nil && !*e {
			r.Runs = harness.RunsNo
			r.Notes = append(r.Notes, "the Gemini CLI's hooks are turned off (hooksConfig.enabled is false): set it to true")
			break
		}
	}
	var off []string
	for _, c := range Config().Entries {
		if slices.Contains(user.HooksConfig.Disabled, c.Command) || slices.Contains(project.HooksConfig.Disabled, c.Command) {
			off = append(off, c.Event)
		}
	}
	if len(off) > 0 {
		r.Runs = harness.RunsNo
		r.Notes = append(r.Notes, fmt.Sprintf("hooksConfig.disabled turns off td's %s: remove td's commands from it", strings.Join(off, ", ")))
	}
	folderTrust := user.Security.FolderTrust.Enabled == nil || *user.Security.FolderTrust.Enabled
	switch v := home(TrustWorkspaceVar); {
	case v == "true":
	case v == "false":
		r.Runs = harness.RunsNo
		r.Notes = append(r.Notes, TrustWorkspaceVar+"=false: the Gemini CLI trusts no folder, so it runs no project hooks")
	case folderTrust:
		path := home(TrustedFoldersVar)
		if path == "" {
			path = filepath.Join(dir, "trustedFolders.json")
		}
		var rules map[string]string
		err := harness.ReadJSONC(path, &rules)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			r.Runs = harness.RunsUnknown
			r.Notes = append(r.Notes, fmt.Sprintf("td cannot read %s (%v): %s", home.Show(path), err, trust))
		case !folderTrusted(rules, root):
			r.Runs = harness.RunsNo
			why := "does not trust"
			if _, ok := rules[root]; !ok {
				why = "has not been asked to trust"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("the Gemini CLI runs no project hooks in a folder its user %s (%s): %s", why, home.Show(path), trust))
		}
	}
	seen := map[string]bool{}
	var fingerprints map[string][]string
	fp := filepath.Join(dir, "trusted_hooks.json")
	if err := harness.ReadJSONC(fp, &fingerprints); err == nil || errors.Is(err, fs.ErrNotExist) {
		for _, k := range fingerprints[root] {
			seen[k] = true
		}
		var unseen []string
		for _, c := range Config().Entries {
			if !seen[":"+c.Command] {
				unseen = append(unseen, c.Event)
			}
		}
		if len(unseen) > 0 && r.Runs != harness.RunsNo {
			r.Notes = append(r.Notes, fmt.Sprintf("the Gemini CLI has not seen td's %s here (%s): it warns about %s at its next start in this folder, then runs %s", strings.Join(unseen, ", "), home.Show(fp), them(unseen), them(unseen)))
		}
	}
	return r, nil
}

// folderTrusted reads the trusted folders as the Gemini CLI does: the
// longest rule whose folder holds root decides (TRUST_PARENT trusts the
// rule's parent folder).
func folderTrusted(rules map[string]string, root string) bool {
	best, level := -1, ""
	for path, l := range rules {
		folder := path
		if l == "TRUST_PARENT" {
			folder = filepath.Dir(path)
		}
		rel, err := filepath.Rel(filepath.Clean(folder), filepath.Clean(root))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			continue
		}
		if len(path) > best {
			best, level = len(path), l
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT"
}

func them(events []string) string {
	if len(events) == 1 {
		return "it"
	}
	return "them"
}
