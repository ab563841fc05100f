package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tdproject/td/repo/harness"
)

func TestReadiness(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	if r, err := Readiness(root, env); err != nil || r.Installed || r.Runs != harness.RunsNo {
		t.Fatalf("not installed: %+v %v", r, err)
	}
	if _, err := InstallHooks(root); err != nil {
		t.Fatal(err)
	}
	if r, err := Readiness(root, env); err != nil || r.Runs != harness.RunsUnknown || !strings.Contains(r.Notes[0], "has not run on this machine") {
		t.Fatalf("never ran: %+v %v", r, err)
	}
	state := filepath.Join(home, ".claude.json")
	os.WriteFile(state, []byte(`{"projects": {"`+root+`": {"hasTrustDialogAccepted": false}}}`), 0o644)
	if r, err := Readiness(root, env); err != nil || r.Runs != harness.RunsNo || !strings.Contains(r.Notes[0], "has not accepted the trust dialog") {
		t.Fatalf("not accepted: %+v %v", r, err)
	}
	os.WriteFile(state, []byte(`{"projects": {"`+root+`": {"hasTrustDialogAccepted": true}}}`), 0o644)
	if r, err := Readiness(root, env); err != nil || r.Runs != harness.RunsYes || len(r.Notes) != 0 {
		t.Fatalf("accepted: %+v %v", r, err)
	}
	os.WriteFile(filepath.Join(root, ".claude", "settings.local.json"), []byte(`{"disableAllHooks": true}`), 0o644)
	if r, err := Readiness(root, env); err != nil || r.Runs != harness.RunsNo || !strings.Contains(r.Notes[0], "disableAllHooks") {
		t.Fatalf("hooks off: %+v %v", r, err)
	}
}
