package harness

import (
	"strings"
	"testing"
)

func TestRecordCommand(t *testing.T) {
	for path, want := range map[string]string{
		".todos/history/td-qkm5oz.jsonl": "td edit, td todo, td comment",
		"sub/.todos/sessions/ses_x.yaml": "td session start",
		".todos/config.yaml":             "td feature set",
		".todos/anchors.md":              "td anchor add",
		".todos/security_events.jsonl":   "audits an exception",
		".gitattributes":                 "td init",
		".githooks/pre-commit":           "td hooks install",
		"docs/governance/policy.md":      "--category meta",
	} {
		if got := recordCommand(path); !strings.Contains(got, want) {
			t.Errorf("recordCommand(%q) = %q, want it to name %q", path, got, want)
		}
	}
}

func TestWritingTool(t *testing.T) {
	for name, want := range map[string]bool{
		"write_file": true, "edit_file": true, "createFile": true, "move_file": true, "apply_patch": true,
		"Write": true, "Delete": true, "edit": true, "create": true, "patch": true, "multiedit": true,
		"read_file": false, "list_directory": false, "search_files": false, "issue": false, "todo": false, "": false,
		"Read": false, "Grep": false, "view": false, "glob": false, "grep": false, "list": false,
	} {
		if got := WritingTool(name); got != want {
			t.Errorf("WritingTool(%q) = %v, want %v", name, got, want)
		}
	}
}
