//go:build unix

package repo

import (
	"os"
	"syscall"
)

// fileStamp identifies one version of a file td replaces by rename: its
// inode (a rename brings a new one), size and modification time. ok is
// false when there is no regular file.
func fileStampOf(path string) (stamp [3]int64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return stamp, false
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	if !isUnix {
		return stamp, false
	}
	return [3]int64{int64(st.Ino), fi.Size(), fi.ModTime().UnixNano()}, true
}
