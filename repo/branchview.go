package repo

import (
	"errors"
	"io/fs"
	"strings"
	"sync"

	"github.com/tdproject/td/audit"
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
	g      *gitrepo.Repo
	prefix string // .todos in the repository, slash-separated
	head   string // HEAD's commit
	base   string // the merge base; "" when there is none
	tip    string // the default branch's commit; "" when there is none

	mu         sync.Mutex
	baseAnc    map[string]bool // the base's commits, the base included; nil until needed
	headAnc    map[string]bool // HEAD's commits, HEAD included
	hist       map[string][]gitrepo.PathChange
	anc        map[string]map[string]bool
	config     *Config // the base's, once read
	configRead bool
}

// BranchView returns the view of this branch, computed once per Store;
// nil, with no error, outside git or on a branch with no commit yet, where
// nothing is committed and CI has nothing to judge.
func (s *Store) BranchView() (*BranchView, error) {
	s.branchOnce.Do(func() { s.branch, s.branchErr = s.loadBranchView() })
	return s.branch, s.branchErr
}

// branchBaseCache names the cache of the last merge base found: HEAD, the
// default branch's tip and their merge base, one line. Finding it walks
// the history; the answer stands while neither commit moves.
const branchBaseCache = "branch-base"

func (s *Store) loadBranchView() (*BranchView, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	head, err := g.Resolve("HEAD")
	if err != nil {
		return nil, nil // no commit yet
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	v := &BranchView{g: g, prefix: prefix, head: head, hist: map[string][]gitrepo.PathChange{}, anc: map[string]map[string]bool{}}
	def, err := g.DefaultBranch()
	if errors.Is(err, gitrepo.ErrNoDefaultBranch) {
		return v, nil
	}
	if err != nil {
		return nil, err
	}
	tip, err := g.Resolve(def)
	if err != nil {
		return nil, err
	}
	v.tip = tip
	if tip == head {
		v.base = head
		return v, nil
	}
	if data, err := s.ReadCache(branchBaseCache); err == nil {
		if f := strings.Fields(string(data)); len(f) == 3 && f[0] == head && f[1] == tip {
			v.base = f[2]
			return v, nil
		}
	}
	mb, err := g.MergeBase(tip, head)
	if errors.Is(err, gitrepo.ErrNoMergeBase) {
		return v, nil
	}
	if err != nil {
		return nil, err
	}
	v.base = mb
	_ = s.WriteCache(branchBaseCache, []byte(head+" "+tip+" "+mb+"\n")) // lost: found again
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
// not from the base. The two histories are walked the first time.
func (v *BranchView) inRange(c string) (bool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.headAnc == nil {
		head, err := v.g.Ancestors(v.head)
		if err != nil {
			return false, err
		}
		base := map[string]bool{}
		if v.base != "" {
			if base, err = v.g.Ancestors(v.base); err != nil {
				return false, err
			}
		}
		v.headAnc, v.baseAnc = head, base
	}
	return v.headAnc[c] && !v.baseAnc[c], nil
}

// FirstAdded returns the oldest of the branch's commits that added the
// file at rel, "" when none did (it is not committed yet).
func (v *BranchView) FirstAdded(rel string) (string, error) {
	h, err := v.history(rel)
	if err != nil {
		return "", err
	}
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].Added {
			continue
		}
		in, err := v.inRange(h[i].Commit.Hash)
		if err != nil {
			return "", err
		}
		if in {
			return h[i].Commit.Hash, nil
		}
	}
	return "", nil
}

// Arrival returns the oldest of the branch's commits whose version of the
// log at rel holds the line text: the commit that brought the entry; ""
// when none does (the line is not committed yet). A copy of the line that
// arrives again later is the same entry (audit.ReadLedgerLines).
func (v *BranchView) Arrival(rel, text string) (string, error) {
	h, err := v.history(rel)
	if err != nil {
		return "", err
	}
	for i := len(h) - 1; i >= 0; i-- {
		c := h[i].Commit.Hash
		if h[i].Deleted {
			continue
		}
		if in, err := v.inRange(c); err != nil || !in {
			if err != nil {
				return "", err
			}
			continue
		}
		data, err := v.g.FileAt(c, v.Path(rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if audit.HoldsLine(data, []byte(text)) {
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

// OnBranch reports whether HEAD has commits of its own since the default
// branch: a pull request's branch, which CI judges against where it
// started. On the default branch itself (or with none) what is committed
// next is judged with what the work tree says.
func (v *BranchView) OnBranch() bool { return v != nil && v.base != "" && v.base != v.head }

// Commit reads the commit hash names.
func (v *BranchView) Commit(hash string) (*gitrepo.Commit, error) { return v.g.CommitAt(hash) }

// BaseConfig returns the config td check --base judges operators and
// flags by: the default branch's as it is now (its tip), the target's
// rules, not the ones it had where the branch left it; the merge base's
// when the tip has none td can read; nil when neither has one.
func (v *BranchView) BaseConfig() *Config {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.configRead {
		v.configRead = true
		for _, rev := range []string{v.tip, v.base} {
			if rev == "" {
				continue
			}
			if data, err := v.g.FileAt(rev, v.Path(ConfigFile)); err == nil {
				if cfg, err := ParseConfig(TodosDir+"/"+ConfigFile, data); err == nil {
					v.config = cfg
					break
				}
			}
		}
	}
	return v.config
}
