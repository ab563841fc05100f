package repo

import "testing"

func TestSnapshotWants(t *testing.T) {
	for rel, want := range map[string]bool{
		"config.yaml": true, "security_events.jsonl": true, "anchors.md": true,
		"issues/td-aaaaaa.md": true, "history/td-aaaaaa.jsonl": true, "sessions/ses_aaaaaaaa.yaml": true,
		"issues/.td-aaaaaa.md.tmp-1": false, "local/index.bin": false, ".gitignore": false,
		"issues/notes.txt": false, "issues/sub/td-aaaaaa.md": false, "other.yaml": false,
	} {
		if snapshotWants(rel) != want {
			t.Errorf("snapshotWants(%q) = %v", rel, !want)
		}
	}
}
