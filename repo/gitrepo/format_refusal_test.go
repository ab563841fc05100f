package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenRefusesSHA256Repositories(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	cfg := filepath.Join(r.GitDir(), "config")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, "[extensions]\n\tobjectFormat = sha256\n"...)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(r.Root())
	if !errors.Is(err, ErrUnsupportedFormat) {
		t.Fatalf("Open: %v, want ErrUnsupportedFormat", err)
	}
	if want := "the git repository uses SHA-256 object names (extensions.objectFormat = sha256), and td reads and writes SHA-1 ones only, so it wrote nothing"; err.Error() != want {
		t.Errorf("error %q", err)
	}
}

func TestCommitOnAPrunedTipSaysWhy(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	writeFile(t, r, "a", "1\n")
	mustCommit(t, r, commitReq("first", "a"))
	missing := "0123456789abcdef0123456789abcdef01234567"
	if err := os.WriteFile(filepath.Join(r.GitDir(), "refs", "heads", "main"), []byte(missing+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "a", "2\n")
	res, err := r.Commit(commitReq("second", "a"))
	if !errors.Is(err, ErrMissingTip) {
		t.Fatalf("error %v, want ErrMissingTip", err)
	}
	if !strings.HasPrefix(err.Error(), "main points to 0123456789ab, which is missing from .git/objects: git gc --prune=now") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q", err)
	}
	if !res.Staged || res.Hash != "" {
		t.Errorf("result %+v, want staged, not committed", res)
	}
}
