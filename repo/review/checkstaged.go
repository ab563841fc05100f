package review

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// CheckStaged runs the rules td check --base runs, on what git commit
// would record: the index (the one indexFile names, as GIT_INDEX_FILE does
// while a hook runs, else the repository's) against HEAD. When the commit
// concludes a merge of the default branch (main merged back into a
// branch), it is judged against MERGE_HEAD, as CI will judge the branch
// once it has main in: main's entries landed there and were judged then,
// and the branch's are judged with the facts they were made with. Any
// other merge is judged against the merge base of HEAD and MERGE_HEAD, so
// that both sides' lines are judged together. It is what the pre-commit
// hook adds to the scope guard: a status set by hand with no transition,
// an approval the policy refuses, an approval the start it depends on
// came beside, a security event with no copy in its ledger, a ledger that
// lost a line. Only the issues the commit touches are read (their files
// and ledgers, with every session, the config and the security events):
// those it stages over HEAD and, concluding a merge, those HEAD changed
// since the base it is judged against. Rules over the whole repository
// (links) are td check's.
//
// A commit that stages nothing under .todos, and concludes no merge,
// costs one index read.
func CheckStaged(s *repo.Store, indexFile string) (*CheckReport, error) {
	rep := &CheckReport{Violations: []Violation{}, Warnings: []Violation{}, Skipped: []string{}, Notes: []string{}}
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return rep, err
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return nil, err
	}
	changes, err := g.StagedChangesIn(indexFile)
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{} // issue IDs
	security := false
	touch := func(path string) {
		rel, ok := strings.CutPrefix(path, prefix+"/")
		if !ok {
			return
		}
		if id, ok := repo.IssueIDOf(repo.TodosDir + "/" + rel); ok {
			touched[id] = true
		}
		security = security || rel == repo.SecurityEvents
	}
	for _, ch := range changes {
		touch(ch.Path)
	}
	if _, err := g.Resolve("HEAD"); err != nil {
		return rep, nil // the first commit: nothing to compare with
	}
	baseRev := "HEAD"
	merging, mainline := false, false
	if _, err := os.Stat(filepath.Join(g.GitDir(), "MERGE_HEAD")); err == nil {
		if mainline = mergesMainline(g); mainline {
			baseRev, merging = "MERGE_HEAD", true
		} else if mb, err := g.MergeBase("HEAD", "MERGE_HEAD"); err == nil {
			baseRev, merging = mb, true
		}
	}
	if merging {
		// Judged against the other side or the merge base, the commit
		// holds what HEAD changed since then too, not only what is
		// staged over HEAD: an issue the merge left as HEAD had it is
		// still the branch's change against main.
		_, _, since, err := g.DiffTrees(baseRev, "HEAD", prefix)
		if err != nil {
			return nil, err
		}
		for _, ch := range since {
			touch(ch.Path)
		}
	}
	if len(touched) == 0 && !security {
		return rep, nil
	}
	c := &checker{s: s, report: rep, merging: merging,
		issues: map[string]*repo.Issue{}, ids: map[string]bool{}, ledgers: map[string][]audit.Entry{}, sessions: map[string]*repo.Session{}}
	ids := sortedKeys(touched)
	if c.head, err = s.StagedSnapshot(changes, ids); err != nil {
		return nil, err
	}
	if c.base, err = s.PartialSnapshotAt(baseRev, ids); err != nil {
		return nil, err
	}
	if security {
		// A security event names its issue: read the issues of events added.
		added := c.addedSecurityIssues()
		c.head.Include(added...)
		c.base.Include(added...)
	}
	c.base.Rev = baseRev
	if merging && !mainline {
		c.base.Rev = "the merge base"
	}
	rep.Base, rep.BaseCommit = c.base.Rev, c.base.Commit
	// CI will judge with the target's rules: the default branch's config
	// as it is now.
	c.target = baseRev
	if name, err := g.DefaultBranch(); err == nil {
		if tip, err := g.Resolve(name); err == nil {
			c.target = tip
		}
	}
	return c.run(false)
}

// addedSecurityIssues lists the issues named by security events the head
// snapshot has and the base does not.
func (c *checker) addedSecurityIssues() []string {
	p := repo.TodosDir + "/" + repo.SecurityEvents
	after, err := c.head.Read(p)
	if err != nil {
		return nil
	}
	var before []byte
	if c.base.Has(p) {
		before, _ = c.base.Read(p)
	}
	var ids []string
	events, _ := audit.ParseSecurityEvents(addedLines(before, after))
	for _, ev := range events {
		if ev.IssueID != "" {
			ids = append(ids, ev.IssueID)
		}
	}
	return ids
}

// mergesMainline reports whether the merge in progress brings in the
// default branch (MERGE_HEAD is its tip or one of its commits): a branch
// merging main back.
func mergesMainline(g *gitrepo.Repo) bool {
	name, err := g.DefaultBranch()
	if err != nil {
		return false
	}
	tip, err := g.Resolve(name)
	if err != nil {
		return false
	}
	theirs, err := g.Resolve("MERGE_HEAD")
	if err != nil {
		return false
	}
	if theirs == tip {
		return true
	}
	mb, err := g.MergeBase(theirs, tip)
	return err == nil && mb == theirs
}
