package repo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestTemporaryFilesOfTodosGoUnderLocalTmp(t *testing.T) {
	root := t.TempDir()
	issue := filepath.Join(root, TodosDir, IssuesDir, "td-abc123.md")
	tmp := tempPath(issue, "0a1b2c")
	want := filepath.Join(root, TodosDir, LocalDir, tempDirName, strconv.Itoa(os.Getpid())+"-0a1b2c-td-abc123.md")
	if tmp != want {
		t.Errorf("temporary file %s, want %s", tmp, want)
	}
	// Outside .todos, or with .todos/local a symlink, it stays beside the
	// file.
	other := filepath.Join(root, "CLAUDE.md")
	if tmp := tempPath(other, "0a1b2c"); filepath.Dir(tmp) != root || !strings.HasPrefix(filepath.Base(tmp), ".CLAUDE.md.tmp-") {
		t.Errorf("temporary file %s, want one beside %s", tmp, other)
	}
	root2 := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root2, TodosDir, IssuesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(root2, TodosDir, LocalDir)); err != nil {
		t.Skip("no symlinks here")
	}
	issue2 := filepath.Join(root2, TodosDir, IssuesDir, "td-abc123.md")
	if tmp := tempPath(issue2, "0a1b2c"); filepath.Dir(tmp) != filepath.Dir(issue2) {
		t.Errorf("temporary file %s follows the .todos/local symlink", tmp)
	}
	if err := os.MkdirAll(filepath.Dir(issue), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(issue, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(issue); string(b) != "x" {
		t.Errorf("read %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, TodosDir, LocalDir, tempDirName)); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}
