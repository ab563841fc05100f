package harness

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetEnvFileVar(t *testing.T) {
	p := filepath.Join(t.TempDir(), "env")
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		got, _ := os.ReadFile(p)
		if string(got) != want {
			t.Fatalf("env file:\n%q\nwant\n%q", got, want)
		}
	}
	check("export TD_SESSION=ses_aaaaaaaa\n")
	os.WriteFile(p, []byte("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2"), 0o644)
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport TD_SESSION=ses_aaaaaaaa\nexport B=2")
	if err := SetEnvFileVar(p, "TD_SESSION", "ses_bbbbbbbb"); err != nil {
		t.Fatal(err)
	}
	check("export A=1\nexport B=2\nexport TD_SESSION=ses_bbbbbbbb\n")
}
