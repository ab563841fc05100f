//go:build !unix

package testscripts

import "github.com/rogpeppe/go-internal/testscript"

// stalelock needs inode numbers, which only unix systems give.
func cmdStaleLock(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("stalelock needs a unix system")
}
