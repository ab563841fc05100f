package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installTags are the build tags the README's go install gives.
const installTags = "urfave_cli_no_docs"

// TestStaticallyLinked keeps td a statically linked program when built
// with CGO_ENABLED=0, as the README says to install it: td serve links
// net/http, whose package net links the C library (its name resolver)
// whenever cgo is on and a C compiler is present, and a dynamically linked
// td starts every command, each harness hook included, about 1 ms later
// (td help performance). Package net must stay the only package of td's
// that has C in it, so CGO_ENABLED=0 builds td whole; the built program
// must ask for no dynamic loader and no shared library.
func TestStaticallyLinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	list := exec.Command(goTool, "list", "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "net" && p != "runtime/cgo" {
			t.Errorf("td links %s, a package with C in it: the C library comes with it", p)
		}
	}
	// The README's build: static, and without urfave/cli's manual page
	// writer (td man prints the page generated into td.1).
	list = exec.Command(goTool, "list", "-deps", "-tags", installTags, ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err = list.Output(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go list -deps -tags %s: %v", installTags, err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "runtime/cgo" || p == "plugin" || strings.Contains(p, "blackfriday") || strings.Contains(p, "md2man") {
			t.Errorf("built as the README says, td still links %s", p)
		}
	}
	if testing.Short() || runtime.GOOS != "linux" {
		return
	}
	bin := filepath.Join(t.TempDir(), "td")
	build := exec.Command(goTool, "build", "-tags", installTags, "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the program built with CGO_ENABLED=0 has a %v segment: it is dynamically linked", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the program built with CGO_ENABLED=0 needs %v", libs)
	}
}
