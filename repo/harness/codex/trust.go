package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/repo/harness"
)

// Codex keeps what its user trusts in $CODEX_HOME/config.toml (CODEX_HOME
// defaults to ~/.codex): [projects."<folder>"] trust_level says whether a
// project folder's own config, hooks included, is loaded at all, and
// [hooks.state."<file>:<event>:<group>:<hook>"] trusted_hash is the
// fingerprint of each hook the user reviewed (/hooks). A project hook
// runs only when its folder is trusted and its fingerprint is the one
// trusted: a new hook, or one whose command, matcher or options changed,
// waits for the user's review, and Codex says nothing of it while it
// skips it.

// HomeVar names the directory Codex keeps its config in.
const HomeVar = "CODEX_HOME"

// maxUserConfig bounds the Codex config td reads.
const maxUserConfig = 4 << 20

// userConfig is the part of Codex's config.toml td reads: its string
// and boolean values by key path (scalars).
type userConfig map[string]string

// trust is the trust_level config gives the project folder dir, "" for
// none.
func (c userConfig) trust(dir string) string {
	return c[strings.Join([]string{"projects", dir, "trust_level"}, keySep)]
}

// hookState is what config records of the hook under key: its trusted
// fingerprint ("" for none), and whether it is turned off.
func (c userConfig) hookState(key string) (hash string, off bool) {
	p := strings.Join([]string{"hooks", "state", key}, keySep) + keySep
	return c[p+"trusted_hash"], c[p+"enabled"] == "false"
}

// eventLabels are the names Codex keys its hook state with.
var eventLabels = map[string]string{
	"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreToolUse": "pre_tool_use",
	"PermissionRequest": "permission_request", "PostToolUse": "post_tool_use", "PreCompact": "pre_compact",
	"PostCompact": "post_compact", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop",
	"Stop": "stop", "SessionEnd": "session_end",
}

// HookKey is the key Codex records a hook's state under: the hooks
// file's absolute path, the event's label, and the hook's place.
func HookKey(file string, h harness.TdHook) string {
	return fmt.Sprintf("%s:%s:%d:%d", file, eventLabels[h.Event], h.Group, h.Hook)
}

// HookHash is the fingerprint Codex trusts a hook by: the SHA-256 of its
// normalised identity (the event's label, the group's matcher, the one
// command hook with its timeout made explicit, 600 seconds by default
// and 1 to 3 for SessionEnd) as JSON with sorted keys, "sha256:" first.
// UserPromptSubmit and Stop take no matcher.
func HookHash(h harness.TdHook) string {
	timeout := int64(600)
	if h.Event == "SessionEnd" {
		timeout = 1
	}
	if h.Timeout != nil {
		timeout = *h.Timeout
	}
	if h.Event == "SessionEnd" {
		timeout = min(max(timeout, 1), 3)
	} else {
		timeout = max(timeout, 1)
	}
	hook := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
	if h.StatusMessage != "" {
		hook["statusMessage"] = h.StatusMessage
	}
	id := map[string]any{"event_name": eventLabels[h.Event], "hooks": []any{hook}}
	if h.HasMatcher && h.Event != "UserPromptSubmit" && h.Event != "Stop" {
		id["matcher"] = h.Matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Readiness says whether Codex will run td's hooks in the work tree at
// root: td's hooks in .codex/hooks.json, the folder trusted, and each
// hook's fingerprint the one the user trusted in Codex's config.
func Readiness(root string, home harness.Home) (*harness.Readiness, error) {
	r, err := Config().Readiness(root)
	if err != nil || !r.Installed {
		return r, err
	}
	dir := home.Dir(HomeVar, ".codex")
	review := "open Codex in this work tree, run /hooks and trust td's hooks (Codex skips a new or changed project hook, silently, until its user reviews it)"
	if dir == "" {
		r.Runs = unknownStep(r, "td cannot find Codex's config (no HOME, no "+HomeVar+"): "+review)
		return r, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		r.Runs = unknownStep(r, fmt.Sprintf("Codex has not run on this machine (no %s): %s", home.Show(dir), review))
		return r, nil
	}
	cfgPath := filepath.Join(dir, "config.toml")
	cfg := userConfig{}
	data, err := readBounded(cfgPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		r.Runs = unknownStep(r, fmt.Sprintf("td cannot read %s (%v): %s", home.Show(cfgPath), err, review))
		return r, nil
	default:
		cfg = scalars(string(data))
	}
	r.Runs = harness.RunsYes
	if level := projectTrust(cfg, root); level != "trusted" {
		r.Runs = harness.RunsNo
		why := "has not been trusted"
		if level != "" {
			why = "is " + level
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Codex loads no hooks from this work tree's .codex: the folder %s in %s; open Codex here and trust the folder", why, home.Show(cfgPath)))
	}
	hooks, err := Config().Groups(root)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, filepath.FromSlash(ConfigFile))
	var untrusted, changed, disabled []string
	for _, h := range hooks {
		hash, off := cfg.hookState(HookKey(file, h))
		switch {
		case off:
			disabled = append(disabled, h.Event)
		case hash == "":
			untrusted = append(untrusted, h.Event)
		case hash != HookHash(h):
			changed = append(changed, h.Event)
		}
	}
	if len(untrusted)+len(changed)+len(disabled) > 0 {
		r.Runs = harness.RunsNo
	}
	if len(untrusted) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Codex has not trusted td's %s: %s", hookWords(untrusted), review))
	}
	if len(changed) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("td's %s changed since Codex's user trusted %s: %s", hookWords(changed), them(changed), review))
	}
	if len(disabled) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("td's %s %s turned off in Codex (enabled = false in %s): turn %s on with /hooks", hookWords(disabled), isAre(disabled), home.Show(cfgPath), them(disabled)))
	}
	return r, nil
}

// unknownStep notes the step that makes sure, and says td cannot tell.
func unknownStep(r *harness.Readiness, note string) string {
	r.Notes = append(r.Notes, note)
	return harness.RunsUnknown
}

// projectTrust is the trust level Codex's config gives the folder at
// root or the nearest folder above it, "" when none.
func projectTrust(cfg userConfig, root string) string {
	for dir := filepath.Clean(root); ; dir = filepath.Dir(dir) {
		if level := cfg.trust(dir); level != "" {
			return level
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

func hookWords(events []string) string {
	if len(events) == 1 {
		return events[0] + " hook"
	}
	return strings.Join(events, ", ") + " hooks"
}

func them(events []string) string {
	if len(events) == 1 {
		return "it"
	}
	return "them"
}

func isAre(events []string) string {
	if len(events) == 1 {
		return "is"
	}
	return "are"
}

// readBounded reads a user config of at most maxUserConfig bytes.
func readBounded(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is not a regular file")
	}
	if fi.Size() > maxUserConfig {
		return nil, fmt.Errorf("it is over %d bytes", maxUserConfig)
	}
	return os.ReadFile(path)
}
