//go:build !unix

package main

import "os"

// maxRSS is 0: the peak resident set size is read on Unix systems only.
func maxRSS(*os.ProcessState) int64 { return 0 }
