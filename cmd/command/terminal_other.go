//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package command

import "os"

// isInteractiveFile reports whether f is a terminal a person can answer a
// question on. Where td cannot tell, it never asks: commands that would
// ask warn instead.
func isInteractiveFile(*os.File) bool { return false }
