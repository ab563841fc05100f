//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished process's peak resident set size in bytes, 0 where
// the system does not say.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there; KiB elsewhere
	}
	return int64(ru.Maxrss) * 1024
}
