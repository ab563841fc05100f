package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnboardVersionFollowsText pins the onboarding text to its version:
// a repository's copy is judged stale by the version alone, so a changed
// text must come with a new version.
func TestOnboardVersionFollowsText(t *testing.T) {
	sum := sha256.Sum256([]byte(OnboardText))
	if got := hex.EncodeToString(sum[:]); got != onboardTextSHA256 {
		t.Fatalf("OnboardText changed without a new version: bump OnboardVersion to %d and set onboardTextSHA256 to %q", OnboardVersion+1, got)
	}
}

func TestOnboardBlockShape(t *testing.T) {
	b := OnboardBlock()
	if !strings.HasPrefix(b, "<!-- td:onboard v2 -->\n") || !strings.HasSuffix(b, "\n<!-- /td:onboard -->\n") {
		t.Fatalf("block markers: %q", b)
	}
	if n := strings.Count(OnboardText, "\n"); n > 45 {
		t.Errorf("the block is %d lines; keep it short enough for an agent to read every time", n)
	}
}

func TestOnboardCheckAndWrite(t *testing.T) {
	dir := t.TempDir()
	block := OnboardBlock()
	old := strings.Replace(block, "td:onboard v2 ", "td:onboard v1 ", 1)
	edited := strings.Replace(block, "Commit td's files", "Commit your files", 1)
	newer := strings.Replace(block, "td:onboard v2 ", "td:onboard v9 ", 1)
	cases := []struct {
		name, content, status, written string
	}{
		{"current", "# Agents\n\n" + block + "\nMore.\n", OnboardCurrent, "# Agents\n\n" + block + "\nMore.\n"},
		{"missing", "# Agents\n\nBe kind.\n", OnboardMissing, "# Agents\n\nBe kind.\n\n" + block},
		{"missing, no final newline", "# Agents", OnboardMissing, "# Agents\n\n" + block},
		{"missing, blank line already", "# Agents\n\n", OnboardMissing, "# Agents\n\n" + block},
		{"empty", "", OnboardMissing, block},
		{"stale", "intro\n" + old + "outro\n", OnboardStale, "intro\n" + block + "outro\n"},
		{"edited", "intro\n  " + edited + "outro\n", OnboardEdited, "intro\n" + block + "outro\n"},
		{"newer", newer, OnboardNewer, block},
		{"crlf", strings.ReplaceAll("# A\n\n"+old+"end\n", "\n", "\r\n"), OnboardStale,
			strings.ReplaceAll("# A\n\n"+block+"end\n", "\n", "\r\n")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".md")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			ck, err := CheckOnboard(p)
			if err != nil {
				t.Fatal(err)
			}
			if ck.Status != c.status {
				t.Fatalf("status %q, want %q", ck.Status, c.status)
			}
			if ck.OK() != (c.status == OnboardCurrent || c.status == OnboardNewer) {
				t.Errorf("OK() = %v", ck.OK())
			}
			before, err := WriteOnboard(p)
			if err != nil {
				t.Fatal(err)
			}
			if before.Status != c.status {
				t.Errorf("write saw %q, want %q", before.Status, c.status)
			}
			got, _ := os.ReadFile(p)
			if string(got) != c.written {
				t.Errorf("written:\n%q\nwant:\n%q", got, c.written)
			}
			if ck, _ := CheckOnboard(p); ck.Status != OnboardCurrent {
				t.Errorf("after write: %q", ck.Status)
			}
		})
	}
}

func TestOnboardNoFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "AGENTS.md")
	ck, err := CheckOnboard(p)
	if err != nil || ck.Status != OnboardNoFile || ck.OK() {
		t.Fatalf("check: %+v, %v", ck, err)
	}
	before, err := WriteOnboard(p)
	if err != nil || before.Status != OnboardNoFile {
		t.Fatalf("write: %+v, %v", before, err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != OnboardBlock() {
		t.Fatalf("new file: %q", got)
	}
}

func TestOnboardRefusals(t *testing.T) {
	block := OnboardBlock()
	cases := map[string]string{
		"no end":     "# A\n<!-- td:onboard v1 -->\ntext\n",
		"end only":   "# A\n<!-- /td:onboard -->\n",
		"two blocks": block + block,
		"no version": "<!-- td:onboard vX -->\n<!-- /td:onboard -->\n",
		"end twice":  block + "<!-- /td:onboard -->\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "AGENTS.md")
			os.WriteFile(p, []byte(content), 0o644)
			if _, err := CheckOnboard(p); err == nil {
				t.Fatal("check: no error")
			}
			if _, err := WriteOnboard(p); err == nil {
				t.Fatal("write: no error")
			}
			got, _ := os.ReadFile(p)
			if string(got) != content {
				t.Fatal("a refused write changed the file")
			}
		})
	}
}

// td onboard --write writes only markdown files outside .todos and .git,
// whichever path reaches them, and never creates or changes a refused one.
func TestOnboardTarget(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".todos", ".git", "docs"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".todos", "config.yaml"), []byte("version: 1\n"), 0o644)
	linked := filepath.Join(dir, "linked")
	symlinks := os.Symlink(filepath.Join(dir, ".todos"), linked) == nil
	for _, tt := range []struct {
		name, path, err string
	}{
		{"AGENTS.md", "AGENTS.md", ""},
		{"a nested markdown file", "docs/agents.markdown", ""},
		{"upper-case extension", "CLAUDE.MD", ""},
		{"td's config", ".todos/config.yaml", "is not a markdown file"},
		{"no extension", "AGENTS", "is not a markdown file"},
		{"markdown inside .todos", ".todos/notes.md", "is inside .todos, which td onboard --write never writes"},
		{"markdown inside .git", ".git/notes.md", "is inside .git"},
		{"through ..", "docs/../.todos/notes.md", "is inside .todos"},
		{"through a symlinked directory", "linked/notes.md", "is inside .todos"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.path, "linked/") && !symlinks {
				t.Skip("no symlinks here")
			}
			p := filepath.Join(dir, tt.path)
			before, _ := os.ReadFile(filepath.Join(dir, ".todos", "config.yaml"))
			_, err := WriteOnboard(p)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, ".todos", "config.yaml")); string(after) != string(before) {
				t.Fatal("a refused write changed .todos/config.yaml")
			}
			if _, err := os.Lstat(p); err == nil && !strings.HasSuffix(p, "config.yaml") {
				t.Fatalf("a refused write created %s", p)
			}
		})
	}
}
