package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStaticallyLinked keeps package net and cgo out of td: either makes
// the toolchain link the C library when a C compiler is present, and a
// dynamically linked td starts every command, each harness hook included,
// about 1 ms later (td help performance).
func TestStaticallyLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "net", "runtime/cgo", "os/user", "plugin":
			t.Errorf("td links %s: on Linux and the BSDs that links the C library, and every command starts slower", p)
		}
	}
}
