package command_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tdproject/td/cmd/command"
	"github.com/tdproject/td/repo/repotest"
)

var (
	completeRepoOnce sync.Once
	completeRepo     string
)

// completeBenchRoot generates a repository of 10,000 issues once per test
// binary, in a temporary directory the last benchmark's cleanup removes.
func completeBenchRoot(b *testing.B) string {
	b.Helper()
	completeRepoOnce.Do(func() {
		dir, err := os.MkdirTemp("", "td-complete-bench-")
		if err != nil {
			b.Fatal(err)
		}
		completeRepo = repotest.Generated(b, dir, 10_000)
	})
	return completeRepo
}

// BenchmarkComplete10k times td __complete, what a shell runs at each
// <TAB>, in one process as the shell starts it, at 10,000 issues with a
// warm index cache. Target: 50 ms (cmd/tdbench times the binary itself).
func BenchmarkComplete10k(b *testing.B) {
	root := completeBenchRoot(b)
	env := func(k string) string { return repotest.GeneratedAuthor(k) }
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"an issue ID", []string{"show", "td-"}, "td-"},
		{"issues in review", []string{"approve", ""}, ""},
		{"labels in use", []string{"list", "-l", ""}, ""},
		{"a subcommand", []string{"todo", "a"}, "add"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			run := func() string {
				var out, errOut bytes.Buffer
				argv := append([]string{"td", "--dir=" + root, "__complete", "--"}, tc.argv...)
				if code := command.Run(argv, strings.NewReader(""), &out, &errOut, env); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
				return out.String()
			}
			if got := run(); !strings.Contains(got, tc.want) {
				b.Fatalf("completion of %q: %q", tc.argv, got)
			}
			for b.Loop() {
				run()
			}
		})
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if completeRepo != "" {
		os.RemoveAll(filepath.Dir(completeRepo))
	}
	os.Exit(code)
}
