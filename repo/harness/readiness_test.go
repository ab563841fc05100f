package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestStripJSONComments(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`:                              `{"a": 1}`,
		"{\n  // the folder\n  \"a\": 1\n}":     "{\n" + strings.Repeat(" ", 15) + "\n  \"a\": 1\n}",
		`{"a": /* one */ 1}`:                    `{"a":           1}`,
		`{"url": "http://x//y", "b": "/*no*/"}`: `{"url": "http://x//y", "b": "/*no*/"}`,
		`{"a": "q\"//"} // end`:                 `{"a": "q\"//"}       `,
		"{\"a\": 1 /* to\nthe end":              "{\"a\": 1      \n       ",
	} {
		if got := string(StripJSONComments([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// FuzzStripJSONComments: stripping keeps the length and the line breaks,
// and a JSON text without comments comes back as it was.
func FuzzStripJSONComments(f *testing.F) {
	f.Add(`{"a": 1}`)
	f.Add("{\n  // c\n  \"a\": \"//\"\n}")
	f.Add(`{"a": /* c */ 1}`)
	f.Fuzz(func(t *testing.T, in string) {
		out := StripJSONComments([]byte(in))
		if len(out) != len(in) || strings.Count(string(out), "\n") != strings.Count(in, "\n") {
			t.Fatalf("%q became %q", in, out)
		}
		var v any
		if json.Unmarshal([]byte(in), &v) == nil {
			var w any
			if json.Unmarshal(out, &w) != nil || !reflect.DeepEqual(v, w) {
				t.Fatalf("valid JSON %q changed to %q", in, out)
			}
		}
	})
}

func TestConfigReadiness(t *testing.T) {
	c := HookConfig{Harness: "codex", Path: ".codex/hooks.json", Layout: MatcherGroups, Entries: []HookEntry{
		{Event: "SessionStart", Command: "td hook codex SessionStart"},
		{Event: "PreToolUse", Matcher: "Bash", Command: "td hook codex PreToolUse"},
		{Event: "SessionEnd", Command: "td hook codex SessionEnd"},
	}}
	root := t.TempDir()
	if r, err := c.Readiness(root); err != nil || r.Installed || r.Runs != RunsNo {
		t.Fatalf("no file: %+v %v", r, err)
	}
	p := filepath.Join(root, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	// An older td's file: SessionEnd is missing, and a hook of the user's.
	os.WriteFile(p, []byte(`{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}, {"hooks": [{"type": "command", "command": "td hook codex SessionStart", "timeout": 30}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "td hook codex PreToolUse"}]}]
}}`), 0o644)
	r, err := c.Readiness(root)
	if err != nil || !r.Installed || strings.Join(r.Missing, ",") != "SessionEnd" || r.Runs != RunsUnknown {
		t.Fatalf("an older td's file: %+v %v", r, err)
	}
	hooks, err := c.Groups(root)
	if err != nil || len(hooks) != 2 {
		t.Fatalf("groups: %+v %v", hooks, err)
	}
	if h := hooks[0]; h.Event != "SessionStart" || h.Group != 1 || h.Hook != 0 || h.HasMatcher || h.Timeout == nil || *h.Timeout != 30 {
		t.Errorf("SessionStart: %+v", h)
	}
	if h := hooks[1]; h.Event != "PreToolUse" || h.Group != 0 || !h.HasMatcher || h.Matcher != "Bash" || h.Timeout != nil {
		t.Errorf("PreToolUse: %+v", h)
	}
	os.WriteFile(p, []byte(`{"hooks": [`), 0o644)
	if _, err := c.Readiness(root); err == nil || !strings.Contains(err.Error(), ".codex/hooks.json") {
		t.Errorf("a broken file: %v", err)
	}
}
