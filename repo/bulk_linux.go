package repo

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncFS syncs the whole file system holding dir in one call; ok is
// false where that is not possible, for the caller to sync file by file.
func syncFS(dir string) (ok bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return true, fmt.Errorf("sync %s: %w", dir, err)
	}
	return true, nil
}
