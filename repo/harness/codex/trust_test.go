package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

// The fingerprints Codex CLI 0.171.0 itself reported for td's hooks
// (codex app-server, hooks/list, currentHash), for .codex/hooks.json as td
// hooks install --codex writes it.
func TestHookHashIsCodexs(t *testing.T) {
	for _, c := range []struct {
		event, matcher string
		hasMatcher     bool
		want           string
	}{
		{"PreToolUse", "Bash|apply_patch", true, "sha256:b0e903f1683be6689057b1b1364a21e7ba0f144416f92f123dfdda3ad91b3bea"},
		{"PermissionRequest", "Bash", true, "sha256:63b15a819de226c66509dae1a9eab8c6de4b01f44e49619d9c11b81d0d0cd43b"},
		{"PostToolUse", "", false, "sha256:fb2f043c45f82656981ff491d9eeb1bbb0e9343dfc6f98661fb1cd33f588a490"},
		{"PreCompact", "", false, "sha256:940324f2cb8b5d8df8e9768a6e4fc38b46f83f5b94b368ee1b82213889ab3444"},
		{"PostCompact", "", false, "sha256:cb9b5cab46ad6697ba9c86c73e5e3f5805d45017e6b106384a92fdb283632f10"},
		{"SessionStart", "", false, "sha256:64a14dc1d08af338a33dccefc5d07f41f180e3610f666ec3579080214de372e8"},
		{"SessionEnd", "", false, "sha256:bbfd9858b29565fe8a6038b1dc9ce892f29b043b7ea1155c0eb14ea9460fa8b7"},
		{"UserPromptSubmit", "", false, "sha256:af35c08aeca217b23ac2912ae8a9572aa1d7fcd9773c931dbe1fbb54e57d298b"},
		{"SubagentStart", "", false, "sha256:54ab9f8fcdaca12a924b60b6c1587847eddafd7ae9f9f7aa8928f68ed6e5c13f"},
		{"SubagentStop", "", false, "sha256:a9688dc71973f1873d57df90cdaab470b88b9e20c5106f68e2e890ddabebe83e"},
		{"Stop", "", false, "sha256:9e86364fff35cc605a889e8c20a01d210df1ece8297a3b485754d22cf8e6c120"},
	} {
		h := harness.TdHook{Event: c.event, Type: "command", Command: "td hook codex " + c.event, Matcher: c.matcher, HasMatcher: c.hasMatcher}
		if got := HookHash(h); got != c.want {
			t.Errorf("%s: %s, Codex says %s", c.event, got, c.want)
		}
	}
	// A matcher given to UserPromptSubmit or Stop is not part of it; a
	// timeout is, and SessionEnd's is held to 1..3 seconds.
	stop := harness.TdHook{Event: "Stop", Command: "td hook codex Stop", Matcher: "*", HasMatcher: true}
	if HookHash(stop) != "sha256:9e86364fff35cc605a889e8c20a01d210df1ece8297a3b485754d22cf8e6c120" {
		t.Error("Stop's matcher changed its fingerprint")
	}
	ten, big := int64(10), int64(60)
	if a, b := HookHash(harness.TdHook{Event: "Stop", Command: "td hook codex Stop", Timeout: &ten}), HookHash(stop); a == b {
		t.Error("a timeout did not change the fingerprint")
	}
	end := harness.TdHook{Event: "SessionEnd", Command: "td hook codex SessionEnd"}
	three, endBig := int64(3), end
	endBig.Timeout = &big
	end3 := end
	end3.Timeout = &three
	if HookHash(endBig) != HookHash(end3) {
		t.Error("SessionEnd's timeout is not held to 3 seconds")
	}
}

// hooksRoot is a work tree with td's Codex hooks installed, and a Codex
// home holding config.
func hooksRoot(t *testing.T, config string) (string, harness.Home) {
	t.Helper()
	root, home := t.TempDir(), t.TempDir()
	if _, err := Config().Install(root); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		config = strings.ReplaceAll(config, "@ROOT@", root)
		os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644)
	}
	return root, func(k string) string {
		if k == HomeVar {
			return home
		}
		return ""
	}
}

// trustAll is the config.toml of a user who trusted the folder and every
// hook td installs.
func trustAll(t *testing.T, root string, skip string, hash func(harness.TdHook) string) string {
	t.Helper()
	hooks, err := Config().Groups(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("model = \"gpt-5-codex\"\n\n[projects.\"" + root + "\"]\ntrust_level = \"trusted\"\n")
	for _, h := range hooks {
		if h.Event == skip {
			continue
		}
		b.WriteString("\n[hooks.state.\"" + HookKey(filepath.Join(root, ".codex", "hooks.json"), h) + "\"]\ntrusted_hash = \"" + hash(h) + "\"\n")
	}
	return b.String()
}

func TestReadiness(t *testing.T) {
	root, home := hooksRoot(t, "")
	r, err := Readiness(root, home)
	if err != nil || r.Runs != harness.RunsNo || !r.Installed || len(r.Notes) != 2 ||
		!strings.Contains(r.Notes[0], "the folder has not been trusted") || !strings.Contains(r.Notes[1], "Codex has not trusted td's SessionStart, UserPromptSubmit") {
		t.Fatalf("nothing trusted: %+v, %v", r, err)
	}

	root, _ = hooksRoot(t, "")
	cfg := trustAll(t, root, "", HookHash)
	home2 := t.TempDir()
	os.WriteFile(filepath.Join(home2, "config.toml"), []byte(cfg), 0o644)
	home = func(k string) string {
		if k == HomeVar {
			return home2
		}
		return ""
	}
	if r, err := Readiness(root, home); err != nil || r.Runs != harness.RunsYes || len(r.Notes) != 0 {
		t.Fatalf("all trusted: %+v, %v", r, err)
	}

	// One hook never reviewed, one whose fingerprint is an older one's.
	cfg = trustAll(t, root, "SessionEnd", func(h harness.TdHook) string {
		if h.Event == "Stop" {
			return "sha256:0000"
		}
		return HookHash(h)
	})
	os.WriteFile(filepath.Join(home2, "config.toml"), []byte(cfg), 0o644)
	r, err = Readiness(root, home)
	if err != nil || r.Runs != harness.RunsNo || len(r.Notes) != 2 ||
		r.Notes[0] != "Codex has not trusted td's SessionEnd hook: open Codex in this work tree, run /hooks and trust td's hooks (Codex skips a new or changed project hook, silently, until its user reviews it)" ||
		!strings.HasPrefix(r.Notes[1], "td's Stop hook changed since Codex's user trusted it") {
		t.Fatalf("one untrusted, one changed: %+v, %v", r, err)
	}

	// A line td cannot read is skipped: here, the only one that trusted
	// anything.
	os.WriteFile(filepath.Join(home2, "config.toml"), []byte("[projects\n"), 0o644)
	if r, err := Readiness(root, home); err != nil || r.Runs != harness.RunsNo || !strings.Contains(r.Notes[0], "the folder has not been trusted") {
		t.Fatalf("broken config: %+v, %v", r, err)
	}
	// No hooks installed: nothing runs, nothing to trust.
	if r, err := Readiness(t.TempDir(), home); err != nil || r.Installed || r.Runs != harness.RunsNo || len(r.Notes) != 0 {
		t.Fatalf("not installed: %+v, %v", r, err)
	}
}

func TestScalars(t *testing.T) {
	doc := `# Codex's config
model = "gpt-5-codex"
approval_policy = 'on-request'
model_auto_compact_token_limit = 200000

[projects."/home/dev/app"]
trust_level = "trusted"  # set by Codex

[projects.'/home/dev/other']
trust_level = "untrusted"

[hooks.state."/home/dev/app/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:9e86"
enabled = false

[hooks]
state."/home/dev/app/.codex/hooks.json:pre_tool_use:0:0".trusted_hash = "sha256:b0e9"

[[mcp_servers.extra]]
name = "ignored"

[notes]
text = """
[projects."/evil"]
trust_level = "trusted"
"""
escaped = "a\"b\\c\u00e9"
list = ["a", "b"]
`
	got := scalars(doc)
	j := func(p ...string) string { return strings.Join(p, keySep) }
	for k, want := range map[string]string{
		j("model"):           "gpt-5-codex",
		j("approval_policy"): "on-request",
		j("projects", "/home/dev/app", "trust_level"):                                           "trusted",
		j("projects", "/home/dev/other", "trust_level"):                                         "untrusted",
		j("hooks", "state", "/home/dev/app/.codex/hooks.json:stop:0:0", "trusted_hash"):         "sha256:9e86",
		j("hooks", "state", "/home/dev/app/.codex/hooks.json:stop:0:0", "enabled"):              "false",
		j("hooks", "state", "/home/dev/app/.codex/hooks.json:pre_tool_use:0:0", "trusted_hash"): "sha256:b0e9",
		j("notes", "escaped"): "a\"b\\cé",
	} {
		if got[k] != want {
			t.Errorf("%q: %q, want %q", strings.ReplaceAll(k, keySep, "."), got[k], want)
		}
	}
	for _, k := range []string{j("projects", "/evil", "trust_level"), j("mcp_servers", "extra", "name"), j("notes", "list"), j("model_auto_compact_token_limit")} {
		if v, ok := got[k]; ok {
			t.Errorf("%q read as %q", strings.ReplaceAll(k, keySep, "."), v)
		}
	}
	cfg := userConfig(got)
	if cfg.trust("/home/dev/app") != "trusted" {
		t.Error("trust")
	}
	if h, off := cfg.hookState("/home/dev/app/.codex/hooks.json:stop:0:0"); h != "sha256:9e86" || !off {
		t.Errorf("hook state: %q %v", h, off)
	}
}

// FuzzScalars: any document is read without a panic, the same way
// twice, and no value holds a line break a one-line value cannot.
func FuzzScalars(f *testing.F) {
	f.Add("[projects.\"/w\"]\ntrust_level = \"trusted\"\n")
	f.Add("[hooks.state.\"/w/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:9e\"\nenabled = true\n")
	f.Add("a.\"b\".c = 'd' # e\n[[x]]\ny = \"\"\"\nz\n\"\"\"\n")
	f.Fuzz(func(t *testing.T, doc string) {
		a, b := scalars(doc), scalars(doc)
		if len(a) != len(b) {
			t.Fatalf("read %q twice, differently", doc)
		}
		for k, v := range a {
			if b[k] != v {
				t.Fatalf("read %q twice, differently", doc)
			}
			if strings.Contains(v, "\n") && !strings.Contains(doc, `\n`) && !strings.Contains(doc, `\u`) && !strings.Contains(doc, `\U`) {
				t.Fatalf("%q: a value %q with a line break its line did not write", doc, v)
			}
		}
	})
}
