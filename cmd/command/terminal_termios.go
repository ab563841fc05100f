//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package command

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isInteractiveFile reports whether f is a terminal a person can answer a
// question on. A character device is not enough: /dev/null is one too.
func isInteractiveFile(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}

// terminalColumns is the width of the terminal w is, 0 when w is not one
// or will not say.
func terminalColumns(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
