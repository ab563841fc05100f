//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package command

import (
	"os"

	"golang.org/x/sys/unix"
)

// isInteractiveFile reports whether f is a terminal a person can answer a
// question on. A character device is not enough: /dev/null is one too.
func isInteractiveFile(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}
