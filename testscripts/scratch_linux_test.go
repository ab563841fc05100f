package testscripts

import (
	"os"
	"syscall"
)

// memoryScratch returns a new directory on Linux's memory file system
// (/dev/shm) when it is there with room to spare, else "". Scenarios write
// and fsync thousands of small files; on a disk, waiting for it is much of
// their time, and it says nothing about td.
func memoryScratch() string {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/dev/shm", &st); err != nil || uint64(st.Bavail)*uint64(st.Bsize) < 512<<20 {
		return ""
	}
	dir, err := os.MkdirTemp("/dev/shm", "td-testscripts-")
	if err != nil {
		return ""
	}
	return dir
}
