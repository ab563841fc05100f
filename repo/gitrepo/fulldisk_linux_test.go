package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStageOnAFullDisk stages on a file system with no room left for the
// new index, whole and split: the write fails with the disk's error, the
// old index stays as it was, no lock is left, and git reads the index;
// once there is room again the same change is staged.
func TestStageOnAFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a file system")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	gitBinary(t)
	for _, tc := range []struct {
		name  string
		split bool
		free  int64 // bytes left free: room for the lock records, not for the index
	}{{"whole index", false, 8 << 10}, {"split index", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := t.TempDir()
			if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=8m"); err != nil {
				t.Skipf("cannot mount a small file system here: %v", err)
			}
			t.Cleanup(func() { _ = syscall.Unmount(mnt, 0) })
			dir := filepath.Join(mnt, "repo")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			runGit(t, dir, "init", "-q", "-b", "main")
			for i := range 300 {
				writeAt(t, dir, fmt.Sprintf("f%03d", i), fmt.Sprintf("file %d\n", i))
			}
			runGit(t, dir, "add", ".")
			runGit(t, dir, "commit", "-q", "-m", "start")
			if tc.split {
				runGit(t, dir, "update-index", "--split-index")
			}
			// A new path whose blob git already has: staging it writes
			// the index and nothing else.
			writeAt(t, dir, "x", "file 1\n")
			r, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			filler := filepath.Join(mnt, "filler")
			fill(t, filler, tc.free)
			before, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}

			err = r.Stage("x")
			t.Logf("Stage on a full disk: %v", err)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Stage on a full disk: %v, want the disk's error", err)
			}
			after, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if !bytes.Equal(before, after) {
				t.Error("the index changed")
			}
			if l := gitLocks(t, dir); len(l) != 0 {
				t.Errorf("locks left: %q", l)
			}
			if out := runGit(t, dir, "ls-files", "x"); out != "" {
				t.Errorf("git ls-files lists %q", out)
			}

			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			if err := r.Stage("x"); err != nil {
				t.Fatalf("Stage with room again: %v", err)
			}
			if out := runGit(t, dir, "ls-files", "x"); out != "x\n" {
				t.Errorf("git ls-files lists %q after staging", out)
			}
			runGit(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

// fill writes path until the file system is full, then gives back free
// bytes.
func fill(t *testing.T, path string, free int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if free > 0 {
		if err := f.Truncate(max(0, n-free)); err != nil {
			t.Fatal(err)
		}
	}
}
