//go:build unix

package repo

import (
	"os"
	"syscall"
)

// dirStamp returns a directory's inode and modification time (ns).
func dirStamp(path string) (ino, mtime int64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return 0, 0, false
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	if !isUnix {
		return 0, 0, false
	}
	return int64(st.Ino), fi.ModTime().UnixNano(), true
}
