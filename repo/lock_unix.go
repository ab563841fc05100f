//go:build unix

package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// processAlive reports whether a process with this ID exists; one owned by
// another user counts.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockFile takes an exclusive advisory lock on path, waiting up to
// lockTimeout. The kernel releases it if the process dies.
func lockFile(path string) (unlock func(), err error) {
	if err := refuseSymlink(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	deadline := time.Now().Add(lockTimeout)
	wait := 200 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			// A writer killed while it held this lock may have left
			// temporary files; a live writer's are kept by their process ID.
			if local := filepath.Dir(path); filepath.Base(local) == LocalDir {
				sweepTempFiles(filepath.Dir(local))
			}
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, Errorf(CodeConflict, "another td process has held %s for %s; wait for it to finish and try again", path, lockTimeout)
		}
		time.Sleep(wait)
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}
