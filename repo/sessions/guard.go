package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/gitrepo"
)

// Scopes (spec section 8): td guard checks a change against what the
// current session's category may change. A project agent may change meta
// paths only through td, so td keeps a journal of its writes to them (see
// journalName): a staged meta path td wrote passes, a hand edit does not.

// GuardCheck is the verdict on one path.
type GuardCheck struct {
	Path    string `json:"path"`             // relative to the work tree root, slash-separated
	Class   string `json:"class"`            // meta, issue, code, local or outside
	Change  string `json:"change,omitempty"` // added, modified, deleted or unmerged, for staged changes
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason"`
}

// GuardReport is what a guard run found: who was checked and each path's
// verdict.
type GuardReport struct {
	Session  string          `json:"session"` // "" when no session acts yet
	Author   string          `json:"author"`  // the git identity behind the session
	Category domain.Category `json:"category"`
	Role     domain.Role     `json:"role"`
	Staged   bool            `json:"staged"` // the paths are the staged changes
	Checked  []GuardCheck    `json:"checked"`
}

// Refused returns the checks that failed.
func (r *GuardReport) Refused() []GuardCheck {
	var out []GuardCheck
	for _, c := range r.Checked {
		if !c.Allowed {
			out = append(out, c)
		}
	}
	return out
}

// GuardStaged checks the staged changes (the index GIT_INDEX_FILE names
// while a git hook runs, else the repository's) against the session's scope.
// se nil means nobody acts yet: the git author is judged as the default
// operator session would be.
func GuardStaged(s *repo.Store, se *repo.Session) (*GuardReport, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, repo.Errorf(repo.CodeRefused, "td guard --staged needs a git repository, and %s is not in one; name the paths to check instead: td guard PATH...", s.Root)
	}
	cfg := trustedConfig(s, g)
	rep, err := guardReport(s, se, cfg)
	if err != nil {
		return nil, err
	}
	rep.Staged = true
	changes, err := g.StagedChangesIn(s.Env("GIT_INDEX_FILE"))
	if err != nil {
		return nil, fmt.Errorf("read the staged changes: %w", err)
	}
	m := scopeMap(s, g, cfg)
	var written map[string][]repo.JournalEntry
	var merge *mergeFacts
	for _, c := range changes {
		rel, class := m.Locate(c.Path)
		facts := policy.ScopeFacts{Role: domain.Role(rep.Role), Category: rep.Category, Class: class}
		if class == policy.ClassMeta && facts.Role != domain.RoleOperator && facts.Category != domain.CategoryMeta {
			if written == nil {
				written = s.ReadJournal()
				merge = readMergeFacts(s, g)
			}
			facts.WrittenByTd = writtenByTd(written[c.Path], c)
			facts.Merged = !facts.WrittenByTd && merge.brought(c)
		}
		v := policy.JudgeScope(facts)
		rep.Checked = append(rep.Checked, GuardCheck{Path: rel, Class: string(class), Change: changeKind(c), Allowed: v.Allowed, Reason: v.Reason})
	}
	return rep, nil
}

// GuardPaths checks the named paths as if the session were about to change
// them: before an edit, no content can show that td wrote it, so a project
// agent is refused every meta path. Relative paths are taken from dir.
func GuardPaths(s *repo.Store, se *repo.Session, dir string, paths []string) (*GuardReport, error) {
	g, err := s.GitRepo()
	if err != nil {
		return nil, err
	}
	cfg := trustedConfig(s, g)
	rep, err := guardReport(s, se, cfg)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m := scopeMap(s, g, cfg)
	for _, p := range paths {
		if p == "" {
			return nil, repo.Errorf(repo.CodeInvalid, "an empty path cannot be checked; name a file or directory")
		}
		native := filepath.FromSlash(p)
		if !filepath.IsAbs(native) {
			native = filepath.Join(base, native)
		}
		rel, class := m.Locate(native)
		v := policy.JudgeScope(policy.ScopeFacts{Role: domain.Role(rep.Role), Category: rep.Category, Class: class})
		rep.Checked = append(rep.Checked, GuardCheck{Path: rel, Class: string(class), Allowed: v.Allowed, Reason: v.Reason})
	}
	return rep, nil
}

// trustedConfig is the config the guard judges by: the one committed at
// HEAD, never the one being committed. Otherwise a change could empty
// meta_paths or add its author to operators and pass in the same commit.
// Only before the first commit of a config (nothing to trust yet) does the
// work tree's count.
func trustedConfig(s *repo.Store, g *gitrepo.Repo) *repo.Config {
	if g == nil {
		return s.Config
	}
	prefix, err := s.TodosInRepo(g)
	if err != nil {
		return s.Config
	}
	p := prefix + "/" + repo.ConfigFile
	data, err := g.FileAt("HEAD", p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, gitrepo.ErrUnknownRevision) {
			s.Warnf("td guard: cannot read %s at HEAD (%v); judging by the work tree's", p, err)
		}
		return s.Config
	}
	cfg, err := repo.ParseConfig(p, data)
	if err != nil {
		s.Warnf("td guard: %s at HEAD does not parse (%v); judging by the work tree's", p, err)
		return s.Config
	}
	return cfg
}

// guardReport fills in who is judged: the session, or without one the git
// author as an operator session of theirs would count. Operators are the
// ones cfg (the trusted config) lists.
func guardReport(s *repo.Store, se *repo.Session, cfg *repo.Config) (*GuardReport, error) {
	if se != nil {
		cat := se.Category
		if cat == "" {
			cat = domain.CategoryProject
		}
		return &GuardReport{Session: se.ID, Author: se.Author, Category: cat, Role: repo.RoleUnder(cfg, se)}, nil
	}
	author, err := s.Author()
	if err != nil {
		return nil, err
	}
	rep := &GuardReport{Author: author, Category: domain.CategoryProject, Role: domain.RoleMember}
	if cfg.IsOperator(repo.SplitIdentity(author)) {
		rep.Role = domain.RoleOperator
	}
	return rep, nil
}

// scopeMap describes where this work tree keeps td's files and git's. The
// work tree root is git's when there is a repository (staged paths are
// relative to it), and .todos sits at Base below it.
func scopeMap(s *repo.Store, g *gitrepo.Repo, cfg *repo.Config) policy.ScopeMap {
	m := policy.ScopeMap{Root: s.Root, MetaPaths: cfg.MetaPaths}
	if g == nil {
		return m
	}
	m.Root = g.Root()
	if rel, err := filepath.Rel(g.Root(), s.Root); err == nil && rel != "." && filepath.IsLocal(rel) {
		m.Base = filepath.ToSlash(rel)
	}
	for _, d := range []string{g.GitDir(), g.CommonDir(), g.HooksDir()} {
		if !slices.Contains(m.GitDirs, d) {
			m.GitDirs = append(m.GitDirs, d)
		}
	}
	switch strings.ToLower(strings.TrimSpace(g.ConfigValue("core", "", "ignorecase"))) {
	case "true", "yes", "on", "1":
		m.FoldCase = true
	}
	return m
}

// changeKind names a staged change for the report.
func changeKind(c gitrepo.StagedChange) string {
	switch {
	case c.Unmerged:
		return "unmerged"
	case c.Added:
		return "added"
	case c.Deleted:
		return "deleted"
	}
	return "modified"
}

// writtenByTd reports whether a staged change is td's own: a chain of td's
// writes leads from HEAD's content to the staged content, and the staged
// file is an ordinary one, as td writes them.
func writtenByTd(entries []repo.JournalEntry, c gitrepo.StagedChange) bool {
	if c.Unmerged || !c.Deleted && c.Mode != 0o100644 {
		return false
	}
	staged, head := c.Hash, c.OldHash
	if c.Deleted {
		staged = repo.JournalAbsent
	}
	if head == "" {
		head = repo.JournalAbsent
	}
	return repo.JournalChain(entries, staged, head)
}

// mergeFacts are the two sides of a merge in progress, nil when there is
// none.
type mergeFacts struct {
	g *gitrepo.Repo
}

// readMergeFacts looks for a merge in progress (MERGE_HEAD).
func readMergeFacts(s *repo.Store, g *gitrepo.Repo) *mergeFacts {
	if _, err := os.Stat(filepath.Join(g.GitDir(), "MERGE_HEAD")); err != nil {
		return nil
	}
	if _, err := g.Resolve("MERGE_HEAD"); err != nil {
		return nil
	}
	return &mergeFacts{g: g}
}

// brought reports whether a staged change is what the merge produced: the
// other branch's file, or, for an append-only log (*.jsonl, merged with
// git's union driver), exactly the lines of both sides.
func (m *mergeFacts) brought(c gitrepo.StagedChange) bool {
	if m == nil || c.Unmerged {
		return false
	}
	theirs, terr := m.g.FileAt("MERGE_HEAD", c.Path)
	if c.Deleted {
		return errors.Is(terr, fs.ErrNotExist)
	}
	if terr != nil && !errors.Is(terr, fs.ErrNotExist) {
		return false
	}
	if terr == nil && gitrepo.BlobHash(theirs) == c.Hash {
		return true
	}
	if !strings.HasSuffix(c.Path, ".jsonl") {
		return false
	}
	ours, oerr := m.g.FileAt("HEAD", c.Path)
	if oerr != nil && !errors.Is(oerr, fs.ErrNotExist) {
		return false
	}
	merged, err := m.g.ReadBlob(c.Hash)
	if err != nil {
		return false
	}
	return isLineUnion(merged, ours, theirs)
}

// isLineUnion reports whether merged holds every line of a and of b, and
// no other line.
func isLineUnion(merged, a, b []byte) bool {
	have := map[string]bool{}
	for _, l := range splitLines(merged) {
		have[l] = true
	}
	sides := map[string]bool{}
	for _, side := range [][]byte{a, b} {
		for _, l := range splitLines(side) {
			if !have[l] {
				return false
			}
			sides[l] = true
		}
	}
	for l := range have {
		if !sides[l] {
			return false
		}
	}
	return true
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
