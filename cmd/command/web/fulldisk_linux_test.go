package web_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tdproject/td/cmd/command/web"
)

// TestWriteSiteOnAFullDisk writes a site on a file system with no room
// left: the first page fails with the disk's error, and the first site,
// built beside its directory, leaves nothing; once there is room the same
// directory takes the whole site.
func TestWriteSiteOnAFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a file system")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	f := newFixture(t)
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small file system here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, 0) })
	filler := filepath.Join(mnt, "filler")
	fh, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := fh.Write(chunk); errors.Is(err, syscall.ENOSPC) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	fh.Close()

	out := filepath.Join(mnt, "site")
	_, err = web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test", Ranges: []string{f.rng}})
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "write "+out) {
		t.Fatalf("WriteSite on a full disk: %v, want no space left, naming the page", err)
	}
	// A first site is whole or absent: nothing is left, beside it either.
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed first site left %s: %v", out, err)
	}
	if entries, _ := os.ReadDir(mnt); len(entries) != 1 {
		t.Errorf("a failed first site left %v beside it", entries)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	res, err := web.WriteSite(f.store(t), out, web.SiteOptions{Version: "test", Ranges: []string{f.rng}})
	if err != nil {
		t.Fatalf("WriteSite once there is room: %v", err)
	}
	if res.Issues != 6 || res.Files != 10 {
		t.Errorf("wrote %d issue pages and %d files; want 6 and 10", res.Issues, res.Files)
	}
}
