package repo

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// statAt returns the size, modification and status change times (ns) of
// the regular file name in the directory open as fd, without following a
// symlink. It
// is one fstatat call on the open directory: os.Root.Lstat costs two and
// a half times as much (its path checks, a FileInfo), and stating every
// issue file is most of what a warm td list does at 100,000 issues.
func statAt(fd int, _ *os.Root, name string) (size, mtime, ctime int64, err error) {
	var st unix.Stat_t
	for {
		err = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, 0, &fs.PathError{Op: "lstatat", Path: name, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return st.Size, st.Mtim.Nano(), st.Ctim.Nano(), nil
	case unix.S_IFLNK:
		return 0, 0, 0, &refusal{"is a symlink; td does not follow symlinks under .todos", errSymlink}
	}
	return 0, 0, 0, &refusal{"is not a regular file", nil}
}
