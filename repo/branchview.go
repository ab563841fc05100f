package repo

import (
	"errors"
	"io/fs"
	"strings"
	"sync"

	"github.com/tdproject/td/repo/gitrepo"
)

// BranchView is the branch as td check --base will judge it in CI: the
// commits since it left the default branch (origin/HEAD, main, master),
// the files the merge base had, and which commit brought what. A local
// decision that CI re-decides from commits (td approve's late-operator
// rule) reads its facts here, so that both decide on the same ones. A
// branch with no default branch to compare with is judged from its first
// commit: every commit is the branch's. A line or file not committed yet
// arrives, as td stages it, with the next commit.
type BranchView struct {
	g       *gitrepo.Repo
	prefix  string          // .todos in the repository, slash-separated
	base    string          // the merge base; "" when there is none
	baseAnc map[string]bool // the base's commits, the base included
	headAnc map[string]bool // HEAD's commits, HEAD included

	mu   sync.Mutex
	hist map[string][]gitrepo.PathChange
	anc  map[string]map[string]bool
}

// BranchView returns the view of this branch, computed once per Store;
// nil, with no error, outside git or on a branch with no commit yet, where
// nothing is committed and CI has nothing to judge.
func (s *Store) BranchView() (*BranchView, error) {
	s.branchOnce.Do(func() { s.branch, s.branchErr = s.loadBranchView() })
	return s.branch, s.branchErr
}

func (s *Store) loadBranchView() (*BranchView, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	if _, err := g.Resolve("HEAD"); err != nil {
		return nil, nil // no commit yet
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	v := &BranchView{g: g, prefix: prefix, baseAnc: map[string]bool{}, hist: map[string][]gitrepo.PathChange{}, anc: map[string]map[string]bool{}}
	if def, err := g.DefaultBranch(); err == nil {
		if mb, err := g.MergeBase(def, "HEAD"); err == nil {
			v.base = mb
			if v.baseAnc, err = g.Ancestors(mb); err != nil {
				return nil, err
			}
		} else if !errors.Is(err, gitrepo.ErrNoMergeBase) {
			return nil, err
		}
	} else if !errors.Is(err, gitrepo.ErrNoDefaultBranch) {
		return nil, err
	}
	if v.headAnc, err = g.Ancestors("HEAD"); err != nil {
		return nil, err
	}
	return v, nil
}

// Path is a path under .todos (slash-separated, such as
// "sessions/ses_x.yaml") as the repository names it.
func (v *BranchView) Path(rel string) string { return v.prefix + "/" + rel }

// InBase reports whether the merge base has the file at rel (under
// .todos).
func (v *BranchView) InBase(rel string) (bool, error) {
	if v.base == "" {
		return false, nil
	}
	_, err := v.g.FileAt(v.base, v.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// BaseFile returns the merge base's file at rel, nil when it has none.
func (v *BranchView) BaseFile(rel string) ([]byte, error) {
	if v.base == "" {
		return nil, nil
	}
	data, err := v.g.FileAt(v.base, v.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// history is the commits that changed rel, newest first, cached.
func (v *BranchView) history(rel string) ([]gitrepo.PathChange, error) {
	v.mu.Lock()
	h, ok := v.hist[rel]
	v.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := v.g.PathHistory(v.Path(rel), 0)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.hist[rel] = h
	v.mu.Unlock()
	return h, nil
}

// inRange reports whether commit c is the branch's: reachable from HEAD,
// not from the base.
func (v *BranchView) inRange(c string) bool { return v.headAnc[c] && !v.baseAnc[c] }

// FirstAdded returns the oldest of the branch's commits that added the
// file at rel, "" when none did (it is not committed yet).
func (v *BranchView) FirstAdded(rel string) (string, error) {
	h, err := v.history(rel)
	if err != nil {
		return "", err
	}
	for i := len(h) - 1; i >= 0; i-- {
		if c := h[i].Commit.Hash; h[i].Added && v.inRange(c) {
			return c, nil
		}
	}
	return "", nil
}

// Arrival returns the oldest of the branch's commits whose version of the
// log at rel holds the line text at least occurrence times: the commit
// that brought that copy of the line; "" when none does (the line is not
// committed yet).
func (v *BranchView) Arrival(rel, text string, occurrence int) (string, error) {
	h, err := v.history(rel)
	if err != nil {
		return "", err
	}
	for i := len(h) - 1; i >= 0; i-- {
		c := h[i].Commit.Hash
		if !v.inRange(c) || h[i].Deleted {
			continue
		}
		data, err := v.g.FileAt(c, v.Path(rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		n := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) == text {
				n++
			}
		}
		if n >= occurrence {
			return c, nil
		}
	}
	return "", nil
}

// Before reports whether commit a is a strict ancestor of commit b.
func (v *BranchView) Before(a, b string) (bool, error) {
	v.mu.Lock()
	anc := v.anc[b]
	v.mu.Unlock()
	if anc == nil {
		var err error
		if anc, err = v.g.Ancestors(b); err != nil {
			return false, err
		}
		delete(anc, b)
		v.mu.Lock()
		v.anc[b] = anc
		v.mu.Unlock()
	}
	return anc[a], nil
}
