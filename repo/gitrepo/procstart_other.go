//go:build !linux

package gitrepo

// processStart is unknown here: a lock record names its process by ID
// alone, and a reused ID keeps a killed td's locks until the next reboot
// frees it or a person removes them.
func processStart(int) string { return "" }
