//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// readNoFollow reads the regular file at path, of at most limit bytes,
// refusing a symlink at the last component (O_NOFOLLOW) and anything that
// is not a regular file, with a *refusal. It talks to the kernel directly:
// an os.File registers with the poller and changes the descriptor's flags
// on every open, which at 20,000 files costs more than the reads.
func readNoFollow(path string, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, &refusal{"is a symlink; td does not follow symlinks under .todos", errSymlink}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &refusal{"is not a regular file", nil}
	}
	if st.Size > limit {
		return nil, &refusal{fmt.Sprintf("is %d bytes, over the %d byte limit", st.Size, limit), nil}
	}
	// A buffer one byte larger than the file: a read that does not fill
	// it has reached the end.
	data := make([]byte, 0, st.Size+1)
	for {
		n, err := syscall.Read(fd, data[len(data):cap(data)])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		data = data[:len(data)+n]
		if n == 0 || len(data) < cap(data) {
			return data, nil
		}
		if int64(len(data)) > limit {
			return nil, &refusal{fmt.Sprintf("is over the %d byte limit", limit), nil}
		}
		data = append(data, 0)[:len(data)]
	}
}

// readRegularFast is readRegular's first try: readNoFollow's four system
// calls where os.Lstat then os.Open resolve the path twice, register the
// file with the poller and grow a buffer (search reads every issue file
// and its ledger; a fresh clone's first command every issue file). On any
// failure readRegular takes its portable path, which says why in its own
// words.
func readRegularFast(path string, limit int64) ([]byte, bool) {
	data, err := readNoFollow(path, limit)
	return data, err == nil
}
