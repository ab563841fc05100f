package command

import "golang.org/x/sys/unix"

// ioctlReadTermios reads a terminal's settings; it fails on anything that
// is not a terminal, /dev/null included.
const ioctlReadTermios = unix.TCGETS
