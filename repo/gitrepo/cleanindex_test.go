package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCleanIndexHashes(t *testing.T) {
	r := newRepo(t)
	dir := r.Root()
	for _, f := range []string{"d/a", "d/b", "d/c", "d/e", "other"} {
		writeFile(t, r, f, f+"\n")
	}
	// Files older than the index, as after a checkout a while ago.
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"d/a", "d/b", "d/c", "d/e", "other"} {
		if err := os.Chtimes(filepath.Join(dir, f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "files")
	// An edit of the same size that puts the modification time back, a
	// plain edit, a removal: none may be trusted.
	writeFile(t, r, "d/b", "X/b\n")
	if err := os.Chtimes(filepath.Join(dir, "d/b"), old, old); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "d/c", "changed\n")
	os.Remove(filepath.Join(dir, "d/e"))

	got, err := r.CleanIndexHashes("d")
	if err != nil {
		t.Fatal(err)
	}
	if want := BlobHash([]byte("d/a\n")); got["d/a"] != want || len(got) != 1 {
		t.Errorf("CleanIndexHashes = %v, want only d/a = %s", got, want)
	}
	all, err := r.CleanIndexHashes("")
	if err != nil {
		t.Fatal(err)
	}
	if all["other"] == "" || all["d/a"] == "" || len(all) != 2 {
		t.Errorf("CleanIndexHashes(\"\") = %v, want d/a and other", all)
	}
}
