//go:build !unix

package repo

import "io/fs"

// lstatStamp gives nothing where td cannot read inode numbers: what a
// stamp would let td skip is read again.
func lstatStamp(string) (fs.FileInfo, int64, bool) { return nil, 0, false }
