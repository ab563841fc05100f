package gitrepo

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// memObjects is an objectReader over objects held in memory.
type memObjects map[plumbing.Hash]cachedObject

func (m memObjects) add(typ plumbing.ObjectType, content []byte) plumbing.Hash {
	h := plumbing.ComputeHash(typ, content)
	m[h] = cachedObject{typ, content}
	return h
}

func (m memObjects) Object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	o, ok := m[h]
	if !ok {
		return plumbing.InvalidObject, nil, fmt.Errorf("read object %s: %w", h, plumbing.ErrObjectNotFound)
	}
	return o.typ, o.data, nil
}

func (m memObjects) Stream(h plumbing.Hash) (plumbing.ObjectType, io.Reader, error) {
	typ, data, err := m.Object(h)
	return typ, bytes.NewReader(data), err
}

func (m memObjects) WithPrefix(prefix string) []plumbing.Hash {
	var out []plumbing.Hash
	for h := range m {
		if strings.HasPrefix(h.String(), prefix) {
			out = append(out, h)
		}
	}
	return out
}

func (m memObjects) Close() error { return nil }

// tree encodes a tree of files (name → blob) and sub-trees (name/ → tree).
func (m memObjects) tree(entries map[string]plumbing.Hash) plumbing.Hash {
	var raw []rawEntry
	for name, h := range entries {
		mode := uint32(modeRegular)
		if dir, ok := strings.CutSuffix(name, "/"); ok {
			name, mode = dir, modeTree
		}
		raw = append(raw, newRawEntry(mode, name, h))
	}
	slices.SortFunc(raw, compareEntryNames)
	var b []byte
	for _, e := range raw {
		b = append(b, e.whole...)
	}
	return m.add(plumbing.TreeObject, b)
}

// TestHistoryOverObjectsInMemory runs the history porcelain over an
// objectReader that is not the repository's files: the porcelain knows
// objects only through the interface.
func TestHistoryOverObjectsInMemory(t *testing.T) {
	t.Parallel()
	m := memObjects{}
	blob := func(s string) plumbing.Hash { return m.add(plumbing.BlobObject, []byte(s)) }
	root := func(issue, readme string) plumbing.Hash {
		files := map[string]plumbing.Hash{"README.md": blob(readme)}
		if issue != "" {
			files[".todos/"] = m.tree(map[string]plumbing.Hash{"issues/": m.tree(map[string]plumbing.Hash{"td-1.md": blob(issue)})})
		}
		return m.tree(files)
	}
	var parent plumbing.Hash
	commit := func(i int, tree plumbing.Hash) plumbing.Hash {
		who := Signature{Name: "Ada", Email: "ada@example.com", When: time.Unix(1795000000+int64(i), 0).UTC()}
		msg := fmt.Sprintf("commit %d\n\nTd-Action: edited\n", i)
		parent = m.add(plumbing.CommitObject, commitObject(tree, parent, CommitRequest{Message: msg, Author: who, Committer: who}))
		return parent
	}
	c1 := commit(1, root("", "r1\n"))
	c2 := commit(2, root("v1\n", "r1\n"))
	commit(3, root("v1\n", "r2\n"))
	c4 := commit(4, root("v2\n", "r2\n"))

	o := &historyReader{r: &Repo{commonDir: t.TempDir()}, objects: m}
	changes, err := o.pathHistory(c4, newTreeWalker(o, []string{".todos", "issues", "td-1.md"}), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hashes(changes), []string{c4.String(), c2.String() + "+"}; !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	if got := changes[0].Commit.Trailer("Td-Action"); !slices.Equal(got, []string{"edited"}) {
		t.Errorf("trailers %q", got)
	}
	if got, err := o.expandShortHash(c1.String()[:8]); err != nil || got != c1 {
		t.Errorf("expandShortHash = %s, %v; want %s", got, err, c1)
	}
	if _, err := o.readCommit(plumbing.NewHash(strings.Repeat("1", 40))); err == nil {
		t.Error("a missing commit was read")
	}
}

// TestLooseObjectLimits feeds the loose object reader damaged files: each
// is refused rather than read short or long.
func TestLooseObjectLimits(t *testing.T) {
	t.Parallel()
	gitBinary(t)
	r := newRepo(t)
	h := plumbing.ComputeHash(plumbing.BlobObject, []byte("content\n"))
	name := h.String()
	path := filepath.Join(r.commonDir, "objects", name[:2], name[2:])
	write := func(raw string) {
		t.Helper()
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write([]byte(raw))
		zw.Close()
		os.MkdirAll(filepath.Dir(path), 0o777)
		os.Remove(path)
		if err := os.WriteFile(path, b.Bytes(), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	read := func() ([]byte, error) {
		o := newObjectFiles(filepath.Join(r.commonDir, "objects"), nil)
		defer o.Close()
		_, data, err := o.Object(h)
		return data, err
	}
	write("blob 8\x00content\n")
	if data, err := read(); err != nil || string(data) != "content\n" {
		t.Fatalf("a sound loose object reads as %q, %v", data, err)
	}
	if got := runGit(t, r.Root(), "cat-file", "-p", name); got != "content\n" {
		t.Fatalf("git reads the sound object as %q", got)
	}
	for _, bad := range []string{"blob 9\x00content\n", "blob 7\x00content\n", "blob x\x00content\n", "bolb 8\x00content\n", "blob 8"} {
		write(bad)
		if data, err := read(); err == nil {
			t.Errorf("loose object %q read as %q", bad, data)
		}
	}
	os.Remove(path)
	if _, err := read(); !errorsIsNotFound(err) {
		t.Errorf("a missing object: %v, want plumbing.ErrObjectNotFound", err)
	}
}

func errorsIsNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), plumbing.ErrObjectNotFound.Error())
}

// TestNothingElseImportsGoGit keeps go-git behind this package: no other
// package of td imports it.
func TestNothingElseImportsGoGit(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("module root not found: %v", err)
	}
	own := filepath.Join(root, "repo", "gitrepo")
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == own || strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/go-git/") {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s imports %s: go-git stays behind repo/gitrepo", rel, imp.Path.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("only %d Go files checked", checked)
	}
}
