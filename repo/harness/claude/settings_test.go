package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/sessions"
)

// install writes data (nil: no file) as .claude/settings.json in a new
// work tree, runs InstallHooks and returns the file and the result.
func install(t *testing.T, data []byte) (string, []byte, error) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, ".claude", "settings.json")
	if data != nil {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
	}
	_, err := InstallHooks(root)
	out, _ := os.ReadFile(p)
	return root, out, err
}

func TestSettingsFragment(t *testing.T) {
	var doc struct {
		Hooks map[Event][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(SettingsFragment(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, h := range HookEntries() {
		g := doc.Hooks[h.Event]
		if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != "td hook claude "+string(h.Event) || g[0].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v", h.Event, g)
		}
		if (g[0].Matcher != nil) != (h.Matcher != "") {
			t.Errorf("%s: matcher %v", h.Event, g[0].Matcher)
		}
	}
}

func TestMergeSettings(t *testing.T) {
	user := `{
    "permissions": {"allow": ["Bash(make && make test)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "gofmt -w \"$FILE\" && echo <ok>"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "td  hook claude SessionStart --format text"}]}]
    },
    "model": "x"
}
`
	root, out, err := install(t, []byte(user))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	// Every byte of the user's is still there, in place.
	for _, keep := range []string{"{\n    \"permissions\": {\"allow\": [\"Bash(make && make test)\"]},\n    \"hooks\": {\n        \"PostToolUse\": [{\"matcher\": \"Write|Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"gofmt -w \\\"$FILE\\\" && echo <ok>\"}]}, ",
		"\"SessionStart\": [{\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"td  hook claude SessionStart --format text\"}]}],\n",
		"\n    },\n    \"model\": \"x\"\n}\n"} {
		if !strings.Contains(s, keep) {
			t.Errorf("lost %q:\n%s", keep, s)
		}
	}
	if strings.Index(s, "gofmt") > strings.Index(s, "td hook claude PostToolUse") {
		t.Errorf("td's group is not after the user's:\n%s", s)
	}
	if strings.Count(s, "td hook claude SessionStart") != 0 || strings.Count(s, "hook claude SessionStart") != 1 {
		t.Errorf("SessionStart duplicated:\n%s", s)
	}
	res, err := InstallHooks(root)
	if err != nil || res.Action != sessions.HookCurrent {
		t.Fatalf("not idempotent: %+v, %v", res, err)
	}
	if again, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.json")); !bytes.Equal(again, out) {
		t.Errorf("a second install rewrote the file:\n%s", again)
	}
	if _, tabbed, _ := install(t, []byte("{\n\t\"a\": 1\n}\n")); !strings.HasPrefix(string(tabbed), "{\n\t\"a\": 1,\n\t\"hooks\": {\n\t\t") {
		t.Errorf("tab indentation lost:\n%s", tabbed)
	}
}

func TestMergeSettingsRefusals(t *testing.T) {
	cases := map[string]string{
		"broken":           "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n",
		"array":            "[]",
		"hooks not object": `{"hooks": []}`,
		"event not a list": `{"hooks": {"Stop": {"hooks": []}}}`,
		"hooks twice":      `{"hooks": {}, "hooks": {}}`,
		"trailing text":    `{} {}`,
		"string":           `"x"`,
	}
	for name, in := range cases {
		_, out, err := install(t, []byte(in))
		if err == nil {
			t.Errorf("%s: merged", name)
		} else if repo.CodeOf(err) != repo.CodeParse {
			t.Errorf("%s: code %s: %v", name, repo.CodeOf(err), err)
		}
		if string(out) != in {
			t.Errorf("%s: the file was rewritten", name)
		}
	}
	_, _, err := install(t, []byte(cases["broken"]))
	var pe *repo.ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || pe.Path != SettingsFile {
		t.Errorf("broken JSON: %v", err)
	}
}

func TestInstallHooks(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".claude", "settings.json")
	res, err := InstallHooks(root)
	if err != nil || res.Action != sessions.HookInstalled || res.Path != ".claude/settings.json" {
		t.Fatalf("%+v, %v", res, err)
	}
	first, _ := os.ReadFile(p)
	if !bytes.Equal(first, SettingsFragment()) {
		t.Errorf("a new file is td's fragment:\n%s", first)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	res, err = InstallHooks(root)
	if err != nil || res.Action != sessions.HookCurrent {
		t.Fatalf("again: %+v, %v", res, err)
	}
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(old) {
		t.Error("a file needing nothing was rewritten")
	}

	os.WriteFile(p, []byte("{oops"), 0o644)
	if _, err := InstallHooks(root); repo.CodeOf(err) != repo.CodeParse {
		t.Fatalf("broken file: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "{oops" {
		t.Fatal("a file td could not read was overwritten")
	}

	os.Remove(p)
	os.WriteFile(filepath.Join(root, "real.json"), []byte("{}"), 0o644)
	os.Symlink(filepath.Join(root, "real.json"), p)
	if _, err := InstallHooks(root); repo.CodeOf(err) != repo.CodeRefused {
		t.Fatalf("symlink: %v", err)
	}
}
