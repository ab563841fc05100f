//go:build unix

package repo

import (
	"io/fs"
	"os"
	"syscall"
)

// lstatStamp returns what the path is (without following a symlink) and
// its inode; ok is false when it cannot be stated.
func lstatStamp(path string) (fi fs.FileInfo, ino int64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, 0, false
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	if !isUnix {
		return nil, 0, false
	}
	return fi, int64(st.Ino), true
}
