//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package command

import (
	"io"
	"os"
)

// isInteractiveFile reports whether f is a terminal a person can answer a
// question on. Where td cannot tell, it never asks: commands that would
// ask warn instead.
func isInteractiveFile(*os.File) bool { return false }

// terminalColumns is the width of the terminal w is; where td cannot
// tell, 0, and COLUMNS or 80 stands.
func terminalColumns(io.Writer) int { return 0 }
