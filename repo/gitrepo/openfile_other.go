//go:build !unix

package gitrepo

import (
	"io/fs"
	"os"
)

// OpenFile is os.OpenFile (see openfile_unix.go).
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
