//go:build !linux

package testscripts

// memoryScratch returns "": only Linux has a memory file system at a known
// place, so elsewhere scenarios work in the temporary directory.
func memoryScratch() string { return "" }
