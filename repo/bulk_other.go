//go:build !linux

package repo

// syncFS reports that this platform has no one-call sync of a file
// system: the caller syncs file by file.
func syncFS(string) (bool, error) { return false, nil }
