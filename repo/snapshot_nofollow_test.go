//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package repo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadNoFollow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := readNoFollow(file, 100); err != nil || string(data) != "hello\n" {
		t.Errorf("regular file: %q %v", data, err)
	}
	empty := filepath.Join(dir, "empty.md")
	os.WriteFile(empty, nil, 0o644)
	if data, err := readNoFollow(empty, 100); err != nil || len(data) != 0 {
		t.Errorf("empty file: %q %v", data, err)
	}
	var r *refusal
	if _, err := readNoFollow(file, 3); !errors.As(err, &r) || !strings.Contains(r.reason, "over the 3 byte limit") {
		t.Errorf("over the limit: %v", err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(file, link); err != nil {
		t.Skip("no symlinks here")
	}
	if _, err := readNoFollow(link, 100); !errors.As(err, &r) || !errors.Is(err, errSymlink) {
		t.Errorf("symlink: %v, want a refusal", err)
	}
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		if _, err := readNoFollow(fifo, 100); !errors.As(err, &r) || r.reason != "is not a regular file" {
			t.Errorf("fifo: %v, want a refusal", err)
		}
	}
	if _, err := readNoFollow(filepath.Join(dir, "missing.md"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
