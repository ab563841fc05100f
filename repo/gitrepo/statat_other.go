//go:build !linux

package gitrepo

// dirStats stats work tree files by their path (see the Linux version,
// which stats them in their open directory).
type dirStats struct{ root string }

func newDirStats(root string, _ []string) *dirStats { return &dirStats{root: root} }

func (d *dirStats) close() {}

func (d *dirStats) lstat(name string) (statData, bool) { return lstatPath(d.root, name) }
