//go:build !(linux || openbsd || dragonfly || solaris || illumos || darwin || freebsd || netbsd)

package gitrepo

import "io/fs"

// fillSys leaves ctime equal to mtime and device, inode and owner zero, as git
// for Windows does.
func fillSys(*statData, fs.FileInfo) {}
