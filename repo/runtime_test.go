package repo

import (
	"bytes"
	"os"
	"testing"
)

// TestRuntimeCopyFollowsTheFile: a Store keeps the runtimes it read, and
// reads the file again once it was replaced (by another process's
// UpdateRuntime) or written in place (a hand edit); what a caller does to
// a runtime it was given is not kept.
func TestRuntimeCopyFollowsTheFile(t *testing.T) {
	s := newTestStore(t)
	other, err := Open(s.Root, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	const id = "ses_aaaaaaaa"
	if err := s.UpdateRuntime(id, func(rt *Runtime) error { rt.BoundIssue = "td-aaaaaa"; rt.Errors = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	read := func(want string, errors int) {
		t.Helper()
		rt, err := s.Runtime(id)
		if err != nil || rt.BoundIssue != want || rt.Errors != errors {
			t.Fatalf("Runtime = %+v, %v; want bound to %q with %d errors", rt, err, want, errors)
		}
		rt.BoundIssue, rt.Errors = "changed by the caller", 99
		rt.Actions = append(rt.Actions, ActionRecord{Command: "x"})
	}
	read("td-aaaaaa", 1)
	read("td-aaaaaa", 1)

	// Another process (another Store) replaces the file.
	if err := other.UpdateRuntime(id, func(rt *Runtime) error { rt.BoundIssue = "td-bbbbbb"; return nil }); err != nil {
		t.Fatal(err)
	}
	read("td-bbbbbb", 1)

	// A hand edit in place.
	p := s.Path(LocalDir, "sessions", id+".json")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"bound_issue": "td-cccccc", "errors": 2}` + "\n")
	f.Close()
	read("td-cccccc", 2)

	// UpdateRuntime starts from the file, not from the copy.
	if err := s.UpdateRuntime(id, func(rt *Runtime) error {
		if rt.BoundIssue != "td-cccccc" || len(rt.Actions) != 0 {
			t.Errorf("UpdateRuntime started from %+v", rt)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeWrittenIsKept: what UpdateRuntime wrote is the Store's copy,
// so the next read does not parse the file again. Shown by an edit that
// keeps the file's inode, size and time, which only a read of the file
// would see.
func TestRuntimeWrittenIsKept(t *testing.T) {
	s := newTestStore(t)
	const id = "ses_aaaaaaaa"
	if err := s.UpdateRuntime(id, func(rt *Runtime) error { rt.BoundIssue = "td-aaaaaa"; return nil }); err != nil {
		t.Fatal(err)
	}
	p := s.Path(LocalDir, "sessions", id+".json")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Replace(data, []byte("td-aaaaaa"), []byte("td-zzzzzz"), 1))
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	rt, err := s.Runtime(id)
	if err != nil || rt.BoundIssue != "td-aaaaaa" {
		t.Fatalf("Runtime = %+v, %v; want the copy UpdateRuntime kept (td-aaaaaa)", rt, err)
	}
}
