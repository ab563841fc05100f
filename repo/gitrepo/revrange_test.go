package gitrepo

import (
	"errors"
	"strings"
	"testing"
)

func TestListTreeAndReadBlob(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	c1 := h.commit("first\n", map[string]string{
		".todos/config.yaml":             "id_prefix: td\n",
		".todos/issues/td-aaaaaa.md":     "---\nid: td-aaaaaa\n---\n",
		".todos/history/td-aaaaaa.jsonl": "{}\n",
		"src/main.go":                    "package main\n",
	})
	h.git(nil, "", "update-index", "--add", "--cacheinfo", "120000,"+h.git(nil, "target\n", "hash-object", "-w", "--stdin")+",.todos/link")
	h.commitIndex("a symlink\n")

	commit, files, err := h.r.ListTree("HEAD", ".todos")
	if err != nil {
		t.Fatal(err)
	}
	if commit != h.git(nil, "", "rev-parse", "HEAD") {
		t.Errorf("commit %s, want HEAD", commit)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		if want := h.git(nil, "", "rev-parse", "HEAD:"+f.Path); f.Hash != want {
			t.Errorf("%s: hash %s, git says %s", f.Path, f.Hash, want)
		}
		if f.IsRegular() == (f.Path == ".todos/link") {
			t.Errorf("%s: IsRegular %v", f.Path, f.IsRegular())
		}
	}
	want := ".todos/config.yaml .todos/history/td-aaaaaa.jsonl .todos/issues/td-aaaaaa.md .todos/link"
	if strings.Join(got, " ") != want {
		t.Errorf("files %q, want %q", strings.Join(got, " "), want)
	}
	data, err := h.r.ReadBlob(files[2].Hash)
	if err != nil || string(data) != "---\nid: td-aaaaaa\n---\n" {
		t.Errorf("ReadBlob: %q %v", data, err)
	}
	if BlobHash(data) != files[2].Hash {
		t.Errorf("BlobHash %s, want %s", BlobHash(data), files[2].Hash)
	}
	if _, err := h.r.ReadBlob(commit); err == nil {
		t.Errorf("ReadBlob of a commit succeeded")
	}

	_, files, err = h.r.ListTree(c1, "nothing/here")
	if err != nil || len(files) != 0 {
		t.Errorf("missing directory: %v %v", files, err)
	}
	if _, _, err := h.r.ListTree("nope", ".todos"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("unknown revision: %v", err)
	}
}

func TestMergeBase(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	root := h.commit("root\n", map[string]string{"a": "1\n"})
	fork := h.commit("fork\n", map[string]string{"a": "2\n"})
	h.git(nil, "", "checkout", "-q", "-b", "topic")
	t1 := h.commit("topic 1\n", map[string]string{"b": "1\n"})
	h.git(nil, "", "checkout", "-q", "main")
	m1 := h.commit("main 1\n", map[string]string{"c": "1\n"})

	cases := []struct{ a, b, want string }{
		{"main", "topic", fork},
		{"topic", "main", fork},
		{"main", "main", m1},
		{"main", root, root},
		{root, "topic", root},
		{t1, "HEAD", fork},
	}
	for _, c := range cases {
		got, err := h.r.MergeBase(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("MergeBase(%s, %s) = %s, %v; want %s", c.a, c.b, got, err, c.want)
		}
		if git := h.git(nil, "", "merge-base", c.a, c.b); git != c.want {
			t.Errorf("git merge-base %s %s says %s, the test expects %s", c.a, c.b, git, c.want)
		}
	}

	// After merging topic into main, topic's tip is the merge base.
	h.merge("topic")
	if got, err := h.r.MergeBase("main", "topic"); err != nil || got != t1 {
		t.Errorf("after the merge: %s, %v; want %s", got, err, t1)
	}

	// Criss-cross: two merge bases; git and td agree on one of them.
	h.git(nil, "", "checkout", "-q", "topic")
	h.commit("topic 2\n", map[string]string{"d": "1\n"})
	h.git(nil, "", "checkout", "-q", "main")
	h.commit("main 2\n", map[string]string{"e": "1\n"})
	h.git(nil, "", "checkout", "-q", "topic")
	h.merge("main~1")
	h.git(nil, "", "checkout", "-q", "main")
	h.merge("topic~1")
	all := h.git(nil, "", "merge-base", "--all", "main", "topic")
	got, err := h.r.MergeBase("main", "topic")
	if err != nil || !strings.Contains(all, got) {
		t.Errorf("criss-cross: %s, %v; git's merge bases are %s", got, err, all)
	}

	// Unrelated histories share nothing.
	h.git(nil, "", "checkout", "-q", "--orphan", "other")
	h.commit("other root\n", map[string]string{"z": "1\n"})
	if _, err := h.r.MergeBase("main", "other"); !errors.Is(err, ErrNoMergeBase) {
		t.Errorf("unrelated: %v, want ErrNoMergeBase", err)
	}
	if _, err := h.r.MergeBase("main", "nope"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("unknown: %v, want ErrUnknownRevision", err)
	}
}

func TestAncestors(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	c1 := h.commit("one\n", map[string]string{"a": "1\n"})
	c2 := h.commit("two\n", map[string]string{"a": "2\n"})
	h.git(nil, "", "checkout", "-q", "-b", "side", c1)
	c3 := h.commit("three\n", map[string]string{"b": "1\n"})
	anc, err := h.r.Ancestors("side")
	if err != nil {
		t.Fatal(err)
	}
	if len(anc) != 2 || !anc[c1] || !anc[c3] || anc[c2] {
		t.Errorf("Ancestors(side) = %v, want %s and %s", anc, c1, c3)
	}
}

func TestDefaultBranch(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t)
	if _, err := h.r.DefaultBranch(); !errors.Is(err, ErrNoDefaultBranch) {
		t.Errorf("unborn: %v, want ErrNoDefaultBranch", err)
	}
	c := h.commit("one\n", map[string]string{"a": "1\n"})
	if got, err := h.r.DefaultBranch(); err != nil || got != "main" {
		t.Errorf("main: %q %v", got, err)
	}
	h.git(nil, "", "branch", "-m", "main", "master")
	if got, err := h.r.DefaultBranch(); err != nil || got != "master" {
		t.Errorf("master: %q %v", got, err)
	}
	h.git(nil, "", "update-ref", "refs/remotes/origin/trunk", c)
	h.git(nil, "", "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	if got, err := h.r.DefaultBranch(); err != nil || got != "origin/trunk" {
		t.Errorf("origin/HEAD: %q %v", got, err)
	}
	if got, err := h.r.Resolve("origin/trunk"); err != nil || got != c {
		t.Errorf("Resolve(origin/trunk) = %s %v", got, err)
	}
}
