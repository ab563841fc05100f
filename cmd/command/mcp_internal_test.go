package command

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFindMCPProgram checks where td mcp looks for the server program:
// beside td first, then on the search path, and what it says when neither
// has it.
func TestFindMCPProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits")
	}
	beside, onPath, empty := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{beside, onPath} {
		if err := os.WriteFile(filepath.Join(d, "td-mcp"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A file that is not executable is not the program.
	if err := os.WriteFile(filepath.Join(empty, "td-mcp"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := empty + string(filepath.ListSeparator) + onPath
	for _, tc := range []struct {
		exeDir, path, want string
	}{
		{beside, path, filepath.Join(beside, "td-mcp")},
		{empty, path, filepath.Join(onPath, "td-mcp")},
		{"", path, filepath.Join(onPath, "td-mcp")},
	} {
		got, err := findMCPProgram(tc.exeDir, tc.path)
		if err != nil || got != tc.want {
			t.Errorf("findMCPProgram(%q, %q) = %q, %v; want %q", tc.exeDir, tc.path, got, err, tc.want)
		}
	}
	_, err := findMCPProgram(empty, empty)
	want := "td mcp runs the MCP server program td-mcp, which is not beside td (in " + empty + ") or on PATH; install it with go install github.com/tdproject/td/cmd/td-mcp (from a checkout: go install ./cmd/td-mcp)"
	if err == nil || err.Error() != want {
		t.Errorf("nowhere: %v\nwant %s", err, want)
	}
}
