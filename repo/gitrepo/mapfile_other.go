//go:build !unix

package gitrepo

import "os"

// mapFile reads size bytes of f: mapping is used on Unix systems only.
func mapFile(f *os.File, size int64) ([]byte, func(), error) { return readWhole(f, size) }
