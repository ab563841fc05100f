//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only and returns them with the function
// that unmaps them; where mapping fails it reads them instead. The index is
// replaced by rename, never rewritten in place, so a mapping stays whole
// while git or td writes a new index; git maps it the same way.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size > 0 && int64(int(size)) == size {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
			return data, func() { _ = syscall.Munmap(data) }, nil
		}
	}
	return readWhole(f, size)
}
