package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testConfig(layout Layout) HookConfig {
	return HookConfig{Harness: "codex", Path: ".x/hooks.json", Layout: layout, Entries: []HookEntry{
		{Event: "Start", Command: "td hook codex Start"},
		{Event: "Tool", Matcher: "Bash", Command: "td hook codex Tool"},
	}}
}

func TestHookConfigMergeKeepsTheUsersKeys(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".x", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"z": 1, "hooks": {"Tool": [{"hooks": [{"type": "command", "command": "mine <&>"}]}]}, "a": true}`), 0o644)
	res, err := testConfig(MatcherGroups).Install(root)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "updated" || res.Events[0].Action != "added" || res.Events[1].Action != "added" {
		t.Fatalf("install: %+v", res)
	}
	got, _ := os.ReadFile(p)
	s := string(got)
	if !(strings.Index(s, `"z"`) < strings.Index(s, `"hooks"`) && strings.Index(s, `"hooks"`) < strings.Index(s, `"a"`)) {
		t.Errorf("keys out of order:\n%s", s)
	}
	if !strings.HasPrefix(s, `{"z": 1, "hooks": {"Tool": [{"hooks": [{"type": "command", "command": "mine <&>"}]}, {"matcher": "Bash", `) || !strings.HasSuffix(s, `}]}, "a": true}`) {
		t.Errorf("the user's bytes were changed, or td's hook was not laid out inline:\n%s", s)
	}
	res, err = testConfig(MatcherGroups).Install(root)
	if err != nil || res.Action != "already installed" {
		t.Fatalf("again: %+v, %v", res, err)
	}
	again, _ := os.ReadFile(p)
	if string(again) != s {
		t.Errorf("a second install rewrote the file")
	}
}

func TestHookConfigLayouts(t *testing.T) {
	for _, c := range []struct {
		layout Layout
		want   []string
	}{
		{MatcherGroups, []string{`"matcher": "Bash"`, `"type": "command"`, `"command": "td hook codex Tool"`}},
		{CommandList, []string{`"version": 1`, `"command": "td hook codex Start"`, `"matcher": "Bash"`}},
		{ShellCommands, []string{`"version": 1`, `"bash": "td hook codex Start"`, `"powershell": "td hook codex Start"`, `"timeoutSec": 30`}},
	} {
		frag := string(testConfig(c.layout).Fragment())
		for _, w := range c.want {
			if !strings.Contains(frag, w) {
				t.Errorf("layout %d: no %s in\n%s", c.layout, w, frag)
			}
		}
	}
}

func TestHookConfigRefuses(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".x", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	for _, c := range []struct {
		layout     Layout
		data, want string
	}{
		{MatcherGroups, "{\n  \"hooks\": ]\n}", ".x/hooks.json:2:"},
		{MatcherGroups, `{"hooks": {"Tool": {}}}`, `"hooks"."Tool" is not a list`},
		{MatcherGroups, `{"hooks": 1, "hooks": 2}`, `"hooks" appears twice`},
		{CommandList, `{"version": 2}`, `"version" is 2`},
	} {
		os.WriteFile(p, []byte(c.data), 0o644)
		_, err := testConfig(c.layout).Install(root)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.data, err, c.want)
		}
		if got, _ := os.ReadFile(p); string(got) != c.data {
			t.Errorf("%s: the file was rewritten", c.data)
		}
	}
}

func TestPatchPaths(t *testing.T) {
	got := PatchPaths("*** Begin Patch\n*** Update File: a.go\n@@\n*** Add File: b/c.go\n+x\n*** Delete File: d\n*** Update File: e\n*** Move to: f\n*** End Patch")
	if strings.Join(got, ",") != "a.go,b/c.go,d,e,f" {
		t.Errorf("PatchPaths = %q", got)
	}
}

// TestHookConfigSpliceKeepsTheLayout adds td's hooks to an indented file
// with comments-free oddities (tabs, a compact list, CRLF-free blank
// lines): every byte of the user's stays, td's entries follow the
// indentation around them.
func TestHookConfigSpliceKeepsTheLayout(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ".x", "hooks.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	orig := "{\n\t\"theme\": \"dark\",\n\n\t\"hooks\": {\n\t\t\"Tool\": [ {\"hooks\": []} ]\n\t}\n}\n"
	os.WriteFile(p, []byte(orig), 0o644)
	if _, err := testConfig(CommandList).Install(root); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "{\n\t\"theme\": \"dark\",\n\n\t\"hooks\": {\n\t\t\"Tool\": [ {\"hooks\": []}, {\"command\": \"td hook codex Tool\", \"matcher\": \"Bash\"} ],\n" +
		"\t\t\"Start\": [\n\t\t\t{\n\t\t\t\t\"command\": \"td hook codex Start\"\n\t\t\t}\n\t\t]\n\t},\n\t\"version\": 1\n}\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
