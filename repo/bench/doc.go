// Package bench times td's store and use cases on a generated repository
// of 10,000 issues: go test -bench . ./repo/bench/. The figures for the
// real binary come from cmd/tdbench.
package bench
