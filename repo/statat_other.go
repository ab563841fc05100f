//go:build !linux

package repo

import "os"

// statAt returns the size and modification time (ns) of the regular file
// name in root, without following a symlink; the status change time is
// not read here (0).
func statAt(_ int, root *os.Root, name string) (size, mtime, ctime int64, err error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return 0, 0, 0, err
	}
	if r := checkRegular(fi, -1); r != nil {
		return 0, 0, 0, r
	}
	return fi.Size(), fi.ModTime().UnixNano(), 0, nil
}
