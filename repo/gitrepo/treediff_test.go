package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffTreesAsGit holds DiffTrees to git diff-tree over commits that
// add, delete and change files, change a mode, swap a file and a directory
// of one name, and leave whole directories alone, with names that sort
// differently as files and as directories.
func TestDiffTreesAsGit(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	c0 := h.commit("start\n", map[string]string{
		".todos/config.yaml":       "a\n",
		".todos/issues/td-a.md":    "a\n",
		".todos/issues/td-b.md":    "b\n",
		".todos/issues/td-b-c.md":  "bc\n",
		".todos/history/td-a.json": "a\n",
		".todos/x/y/z.txt":         "z\n",
		".todos/same/kept.txt":     "k\n",
		".todos/ab":                "file\n",
		"src/main.go":              "package main\n",
	})
	h.write(map[string]string{".todos/ab": ""}) // before the directory of that name
	c1 := h.commit("change\n", map[string]string{
		".todos/issues/td-a.md":    "a2\n",
		".todos/issues/td-b.md":    "",
		".todos/issues/td-c.md":    "c\n",
		".todos/x/y/z.txt":         "z2\n",
		".todos/x/y/w.txt":         "w\n",
		".todos/ab/inside.txt":     "now a directory\n",
		".todos/ab.txt":            "beside\n",
		".todos/history/td-a.json": "a\nb\n",
		"src/main.go":              "package main // changed\n",
	})
	if err := os.Chmod(filepath.Join(h.r.Root(), ".todos/config.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	c2 := h.commit("mode\n", nil)
	pairs := [][2]string{{c0, c1}, {c1, c0}, {c1, c2}, {c0, c2}, {c2, c2}, {c0, "HEAD"}}
	for _, pair := range pairs {
		for _, dir := range []string{".todos", ".todos/issues", ".todos/x", "nothing", "src"} {
			t.Run(fmt.Sprintf("%s..%s/%s", pair[0][:7], pair[1], dir), func(t *testing.T) {
				from, to, changes, err := h.r.DiffTrees(pair[0], pair[1], dir)
				if err != nil {
					t.Fatal(err)
				}
				if from != pair[0] || to != h.git(nil, "", "rev-parse", pair[1]) {
					t.Errorf("commits %s %s", from, to)
				}
				var got []string
				for _, ch := range changes {
					got = append(got, fmt.Sprintf("%06o %06o %s %s %s", ch.From.Mode, ch.To.Mode, orZero(ch.From.Hash), orZero(ch.To.Hash), ch.Path))
				}
				var want []string
				for _, l := range strings.Split(h.git(nil, "", "diff-tree", "-r", "--no-renames", "--no-abbrev", pair[0], pair[1], "--", dir), "\n") {
					if l == "" {
						continue
					}
					meta, path, _ := strings.Cut(l, "\t")
					f := strings.Fields(strings.TrimPrefix(meta, ":"))
					want = append(want, fmt.Sprintf("%s %s %s %s %s", f[0], f[1], f[2], f[3], path))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("DiffTrees:\n%s\ngit diff-tree:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
	if _, _, _, err := h.r.DiffTrees("nope", c0, ".todos"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("unknown revision: %v", err)
	}
}

// orZero is git diff-tree's spelling of no object.
func orZero(h string) string {
	if h == "" {
		return strings.Repeat("0", 40)
	}
	return h
}

// TestDirLookup finds every entry git ls-tree lists, and nothing else, in
// a directory whose names sort differently as files and as directories.
func TestDirLookup(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	files := map[string]string{}
	for _, name := range []string{"a", "a-b", "a.b", "a0", "b", "td-k3x9qa.md", "td-k3x9qa.mdx", "z"} {
		files["d/"+name] = name + "\n"
	}
	files["d/a.b-dir/inside"] = "dir\n" // sorts as "a.b-dir/", after "a.b"
	files["d/dir/inside"] = "dir\n"
	h.commit("dir\n", files)

	commit, dirs, err := h.r.ReadDirs("HEAD", "d", "nothing", "d/a/inside")
	if err != nil {
		t.Fatal(err)
	}
	if commit != h.git(nil, "", "rev-parse", "HEAD") || dirs[1] != nil || dirs[2] != nil {
		t.Fatalf("ReadDirs: %s %v", commit, dirs)
	}
	d := dirs[0]
	listed := strings.Split(h.git(nil, "", "ls-tree", "HEAD", "d/"), "\n")
	if d.Len() != len(listed) {
		t.Errorf("Len %d, git lists %d", d.Len(), len(listed))
	}
	for i, l := range listed {
		meta, path, _ := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		name := strings.TrimPrefix(path, "d/")
		if got := string(d.Name(i)); got != name {
			t.Errorf("entry %d is %q, git says %q", i, got, name)
		}
		got, ok := d.Lookup(name)
		if f[1] == "tree" {
			if ok {
				t.Errorf("Lookup(%q) found the directory as a file: %v", name, got)
			}
			continue
		}
		if !ok || got.Hash != f[2] || fmt.Sprintf("%06o", got.Mode) != f[0] || got.Path != path {
			t.Errorf("Lookup(%q) = %v %v, git says %s", name, got, ok, l)
		}
	}
	for _, name := range []string{"", "0", "a-", "a/inside", "dir/inside", "td-k3x9qa", "zz", "td-k3x9qa.m"} {
		if got, ok := d.Lookup(name); ok {
			t.Errorf("Lookup(%q) found %v", name, got)
		}
	}
	var nilDir *Dir
	if _, ok := nilDir.Lookup("a"); ok {
		t.Errorf("a nil Dir found a file")
	}
}

// TestNewDirRefuses refuses a tree cut short or out of order, which a
// binary search would read wrong.
func TestNewDirRefuses(t *testing.T) {
	t.Parallel()
	var h [20]byte
	entry := func(mode, name string) string { return mode + " " + name + "\x00" + string(h[:]) }
	for _, tc := range []struct {
		name, data, want string
	}{
		{"ordered", entry("100644", "a") + entry("40000", "a") + entry("100644", "a0"), ""},
		{"out of order", entry("100644", "b") + entry("100644", "a"), "out of order"},
		{"twice", entry("100644", "a") + entry("100644", "a"), "out of order"},
		{"directory after its file-sorted neighbour", entry("40000", "a") + entry("100644", "a-b"), "out of order"},
		{"cut short", entry("100644", "a")[:10], "cut short"},
		{"bad mode", entry("10x644", "a"), "bad mode"},
	} {
		_, err := newDir("d", []byte(tc.data))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzNewDir holds the Dir a raw tree decodes to to its entries: each is
// found by name (as a file, or not at all for a directory), in order, and
// names that are not entries are not found.
func FuzzNewDir(f *testing.F) {
	var h [20]byte
	entry := func(mode, name string) string { return mode + " " + name + "\x00" + string(h[:]) }
	f.Add([]byte(entry("100644", "a") + entry("40000", "a") + entry("100644", "a0")))
	f.Add([]byte(entry("100644", "td-k3x9qa.md") + entry("120000", "td-z.md") + entry("160000", "sub")))
	f.Add([]byte(entry("100644", "b") + entry("100644", "a")))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := newDir("d", data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for i := range d.Len() {
			name := string(d.Name(i))
			got, ok := d.Lookup(name)
			e := d.entry(i)
			switch {
			case strings.ContainsRune(name, '/'):
				if ok {
					t.Fatalf("Lookup(%q) found a name holding a slash", name)
				}
			case e.dir || !d.IsFile(i):
				if ok && !seen[name] {
					// A directory and a file may share a name.
					if f, fok := d.File(i); fok || f.Path != "" {
						t.Fatalf("entry %d %q: File says a directory is a file", i, name)
					}
				}
			case !ok || got.Path != "d/"+name:
				t.Fatalf("Lookup(%q) = %v %v, entry %d is that file", name, got, ok, i)
			}
			seen[name] = true
			if _, ok := d.Lookup(name + "\x01"); ok && !seen[name+"\x01"] {
				// Only a later entry may hold that name.
				found := false
				for j := i + 1; j < d.Len(); j++ {
					found = found || string(d.Name(j)) == name+"\x01"
				}
				if !found {
					t.Fatalf("Lookup(%q) found a name that is no entry", name+"\x01")
				}
			}
		}
	})
}
