package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refuseLinks refuses a link at the path or at any directory between
// .todos and it, naming the link from the work tree root.
func TestRefuseLinks(t *testing.T) {
	s := newTestStore(t)
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(s.Dir, "probe")); err != nil {
		t.Skip("no symlinks here")
	}
	os.Remove(filepath.Join(s.Dir, "probe"))
	for _, tt := range []struct {
		name, link, path, err string // link: relative to .todos, made a symlink
	}{
		{"plain", "", "local/lock", ""},
		{"missing", "", "local/nope/x.json", ""},
		{"the lock", "local/lock", "local/lock", ".todos/local/lock is a symlink"},
		{"a directory above", "local/sessions", "local/sessions/ses_aaaaaaaa.lock", ".todos/local/sessions is a symlink"},
		{"outside .todos", "", "../x", "is outside .todos"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.link != "" {
				p := s.Path(filepath.FromSlash(tt.link))
				os.RemoveAll(p)
				if err := os.Symlink(out, p); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(p)
			}
			err := s.refuseLinks(s.Path(filepath.FromSlash(tt.path)))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

// A default session file td will not read is an error, not a reason to
// mint another session; a file that is gone is.
func TestDefaultSessionRefusesALink(t *testing.T) {
	s := newTestStore(t)
	se := actor(t, s)
	p := s.Path(SessionsDir, se.ID+".yaml")
	moved := filepath.Join(t.TempDir(), "se.yaml")
	if err := os.Rename(p, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, p); err != nil {
		t.Skip("no symlinks here")
	}
	if _, _, err := s.CurrentSession("", true); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("CurrentSession = %v, want a refusal", err)
	}
	if ents, _ := os.ReadDir(s.Path(SessionsDir)); len(ents) != 1 {
		t.Fatalf("%d session files, want the one link", len(ents))
	}
	os.Remove(p)
	se2, _, err := s.CurrentSession("", true)
	if err != nil || se2.ID == se.ID {
		t.Fatalf("CurrentSession after the file went = %v, %v; want a new session", se2, err)
	}
}

// A runtime td cannot parse is refused with its line, and UpdateRuntime
// leaves it as it was.
func TestRuntimeNeverOverwritesWhatItCannotParse(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"syntax", "{\n  \"state\": \"x\",\n  oops\n}\n", "sessions/ses_aaaaaaaa.json:3: not valid JSON (invalid character 'o'"},
		{"type", "{\n  \"errors\": \"many\"\n}\n", "sessions/ses_aaaaaaaa.json:2: not valid JSON (json: cannot unmarshal string"},
		{"cut short", "{\"state\":", "sessions/ses_aaaaaaaa.json:1: not valid JSON (unexpected end of JSON input)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			p := s.Path(LocalDir, "sessions", "ses_aaaaaaaa.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(tt.data), 0o644)
			if _, err := s.Runtime("ses_aaaaaaaa"); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Runtime = %v, want %q", err, tt.want)
			}
			err := s.UpdateRuntime("ses_aaaaaaaa", func(rt *Runtime) error { rt.BoundIssue = "td-aaaaaa"; return nil })
			if err == nil || !strings.Contains(err.Error(), "td will not overwrite it") {
				t.Fatalf("UpdateRuntime = %v", err)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.data {
				t.Fatalf("runtime rewritten: %q", b)
			}
		})
	}
}

// A cache is read only when it is a regular file: a link is refused with
// a warning (td works without the cache), a missing one is no cache.
func TestReadCacheRefusesLinks(t *testing.T) {
	s := newTestStore(t)
	out := filepath.Join(t.TempDir(), "out.bin")
	os.WriteFile(out, []byte("x"), 0o644)
	for _, tt := range []struct {
		name string
		make func(p string) error
		warn string
	}{
		{"missing", func(string) error { return nil }, ""},
		{"regular", func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) }, ""},
		{"symlink", func(p string) error { return os.Symlink(out, p) }, ".todos/local/index.bin is a symlink"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := s.Path(LocalDir, IndexFile)
			os.Remove(p)
			if err := tt.make(p); err != nil {
				t.Skip(err)
			}
			s.warnings = nil
			data, err := s.readCache(IndexFile)
			if tt.name == "regular" && (err != nil || string(data) != "x") {
				t.Fatalf("read %q, %v", data, err)
			}
			if tt.name != "regular" && err == nil {
				t.Fatal("read a cache that is not there or not a file")
			}
			if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, tt.warn) || (tt.warn == "") != (w == "") {
				t.Fatalf("warnings %q, want %q", w, tt.warn)
			}
		})
	}
}
