package site

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/markdown"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo"
	"github.com/tdproject/td/repo/board"
	"github.com/tdproject/td/repo/claims"
	"github.com/tdproject/td/repo/people"
	"github.com/tdproject/td/repo/review"
)

// Source builds pages from one reading of a store: the issues are loaded
// once and what pages share (titles, children, the links others store
// about an issue, people's names) is worked out once. A Source is a
// snapshot: after the store changes, open a new one.
type Source struct {
	s        *repo.Store
	repoName string
	byID     map[string]*repo.Issue
	// inverse holds, per issue, the links other issues store about it,
	// already inverted (parent_of, blocks, duplicated_by, relates_to).
	inverse  map[string][]domain.Link
	children map[string][]string
	claims   *claims.Set

	mu    sync.Mutex
	names map[string]string
}

// Open reads the store's issues for the pages. Files td cannot read are
// returned beside the Source, which shows what it could read.
func Open(s *repo.Store) (*Source, []error, error) {
	src := New(s)
	errs, err := src.Load()
	if err != nil {
		return nil, nil, err
	}
	return src, errs, nil
}

// New returns a Source that has read no issue yet: enough for the diff
// pages (Diff), which read what they compare themselves. td board --html
// builds them before Load, so that the two listings of every file a diff
// holds and the issues the other pages need are never in memory at once
// (at 100,000 issues, about 100 MB each).
func New(s *repo.Store) *Source {
	return &Source{s: s, repoName: filepath.Base(s.Root), byID: map[string]*repo.Issue{},
		inverse: map[string][]domain.Link{}, children: map[string][]string{}, names: map[string]string{}}
}

// Load reads the store's issues and claims for the board and issue pages.
// Files td cannot read are returned.
func (src *Source) Load() ([]error, error) {
	s := src.s
	all, errs, err := s.LoadAll()
	if err != nil {
		return nil, err
	}
	// Updated is the ledger's last entry, as td show and td list say.
	s.FillUpdated(all)
	src.byID = make(map[string]*repo.Issue, len(all))
	for _, is := range all {
		src.byID[is.ID] = is
	}
	for _, is := range all {
		for _, l := range is.Links {
			src.inverse[l.To] = append(src.inverse[l.To], domain.Link{Kind: l.Kind.Inverse(), To: is.ID})
			if l.Kind == domain.ChildOf {
				src.children[l.To] = append(src.children[l.To], is.ID)
			}
		}
	}
	for _, ids := range src.children {
		sort.Strings(ids)
	}
	for k, ls := range src.inverse {
		sort.SliceStable(ls, func(i, j int) bool {
			if ls[i].Kind != ls[j].Kind {
				return inverseRank(ls[i].Kind) < inverseRank(ls[j].Kind)
			}
			return ls[i].To < ls[j].To
		})
		src.inverse[k] = ls
	}
	cs, err := claims.Load(s)
	if err != nil {
		errs = append(errs, err)
	}
	src.claims = cs
	return errs, nil
}

func inverseRank(k domain.LinkKind) int {
	for i, x := range []domain.LinkKind{domain.ParentOf, domain.DuplicatedBy, domain.Blocks, domain.RelatesTo} {
		if k == x {
			return i
		}
	}
	return 4
}

// RepoName is the repository's name as the pages title it.
func (src *Source) RepoName() string { return src.repoName }

// IDs lists every readable issue's ID, sorted.
func (src *Source) IDs() []string {
	ids := make([]string, 0, len(src.byID))
	for id := range src.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Board is the board page for f, with links to the diff pages named.
func (src *Source) Board(f board.Filter, diffs []DiffLink) (*Board, error) {
	if f.Now.IsZero() {
		f.Now = src.s.Now()
	}
	b, err := board.Build(src.s, f)
	if err != nil {
		return nil, err
	}
	return &Board{Repo: src.repoName, Columns: b.Columns, Diffs: diffs, Generated: f.Now}, nil
}

// ref names the issue id for another page.
func (src *Source) ref(id string) Ref {
	if is, ok := src.byID[id]; ok {
		return Ref{ID: id, Title: is.Title, Status: is.Status}
	}
	return Ref{ID: id, Missing: true}
}

// Name names a session for people, "Bob (ses_x)", or returns what was
// written when td knows no name for it. Safe for concurrent use.
func (src *Source) Name(v string) string {
	if v == "" {
		return ""
	}
	id := strings.TrimPrefix(v, domain.AssigneeSessionPrefix)
	src.mu.Lock()
	n, ok := src.names[id]
	src.mu.Unlock()
	if !ok {
		n = people.NameOf(src.s, id)
		src.mu.Lock()
		src.names[id] = n
		src.mu.Unlock()
	}
	if n == "" {
		return v
	}
	return n + " (" + v + ")"
}

// Issue is the page of the issue ref, with its log as td log ID tells it:
// every commit described. A missing issue is a not-found error.
func (src *Source) Issue(ref string) (*Issue, error) {
	id, err := src.s.ResolveID(ref)
	if err != nil {
		return nil, err
	}
	is, err := src.s.ReadIssueFile(id)
	if err != nil {
		return nil, err
	}
	p := src.page(is)
	lg, err := review.Log(src.s, id, 0)
	if err != nil {
		return nil, err
	}
	p.InGit, p.Described = lg.InGit, true
	for _, e := range lg.Entries {
		le := LogEntry{Time: e.Time, Ledger: e.Ledger}
		if e.Ledger != nil {
			le.Who = src.Name(e.Ledger.Session)
		}
		if c := e.Commit; c != nil {
			le.Commit = &Commit{Hash: c.Hash, Author: c.Author.String(), Subject: c.Subject, Summary: c.Summary()}
		}
		p.Log = append(p.Log, le)
	}
	return p, nil
}

// page fills an issue's page from its file, without its log.
func (src *Source) page(is *repo.Issue) *Issue {
	p := &Issue{Repo: src.repoName, Ref: Ref{ID: is.ID, Title: is.Title, Status: is.Status}, Type: is.Type, Priority: is.Priority,
		Resolution: is.Resolution, Minor: is.Minor, Labels: is.Labels, CreatedBy: src.Name(is.CreatedBy),
		Implementer: src.Name(is.Implementer), Assignee: src.Name(is.Assignee), CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
		Description: is.Description()}
	if known, ok := src.byID[is.ID]; ok && known.UpdatedAt.After(p.UpdatedAt) {
		p.UpdatedAt = known.UpdatedAt
	}
	items := is.Todos()
	p.Summary = markdown.Summarize(items)
	for _, it := range items {
		t := Todo{Text: it.Text, Status: it.Status, Notes: it.Notes}
		if it.Kind == domain.KindCriterion {
			p.Criteria = append(p.Criteria, t)
			continue
		}
		if n := len(p.Phases); n == 0 || p.Phases[n-1].Name != it.Phase {
			p.Phases = append(p.Phases, Phase{Name: it.Phase})
		}
		p.Phases[len(p.Phases)-1].Todos = append(p.Phases[len(p.Phases)-1].Todos, t)
	}
	for _, l := range is.Links {
		r := src.ref(l.To)
		p.Links = append(p.Links, Link{Kind: l.Kind, To: r})
		if l.Kind == domain.ChildOf && p.Parent == nil {
			p.Parent = &r
		}
	}
	for _, l := range src.inverse[is.ID] {
		p.Links = append(p.Links, Link{Kind: l.Kind, To: src.ref(l.To)})
	}
	for _, cid := range src.children[is.ID] {
		c := src.byID[cid]
		sum := c.Tally() // from the index cache: no file read
		ch := Child{Ref: src.ref(cid), Done: sum.Done + sum.CriteriaDone, Total: sum.Done + sum.Open + sum.Blocked + sum.CriteriaTotal}
		if c.Status == domain.StatusClosed {
			p.ChildrenClosed++
		}
		p.Children = append(p.Children, ch)
	}
	if src.claims != nil {
		if c := src.claims.Shown(is.ID, is.Status); c != nil {
			// In the board's words, with the time as the terminal gives
			// it: "claimed by Bob in ../app-2 until 14:05 UTC".
			p.Claim = board.ClaimText(src.claims, c, src.s.Now())
		}
	}
	return p
}

// EachIssue builds every readable issue's page and hands it to fn, on up
// to workers goroutines at once (fn must be safe for that). The pages'
// logs come from the ledgers and one walk of git history for all issues:
// each commit that touched an issue's files is listed with its subject,
// not described (Described is false), which would cost two reads of the
// issue file per commit. An error from fn stops the pages not yet built.
func (src *Source) EachIssue(workers int, fn func(*Issue) error) error {
	commits, inGit, err := src.commitsByIssue()
	if err != nil {
		return err
	}
	ids := src.IDs()
	if src.claims != nil {
		// Read every claim now: Get then only reads, from any goroutine.
		src.claims.Prefetch(ids)
	}
	var (
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	repo.ForEach(len(ids), workers, 16, func(i int) {
		mu.Lock()
		stop := first != nil
		mu.Unlock()
		if stop {
			return
		}
		is, err := src.s.ReadIssueFile(ids[i])
		if err != nil {
			// Unreadable since Open read it: it has no page this time.
			return
		}
		p := src.page(is)
		p.InGit = inGit
		ledger, lerrs, err := src.s.Ledger(is.ID)
		if err != nil {
			fail(err)
			return
		}
		for _, le := range lerrs {
			p.Problems = append(p.Problems, le.Error())
		}
		p.Log = src.mergeLog(ledger, commits[is.ID])
		if err := fn(p); err != nil {
			fail(err)
		}
	})
	return first
}

// mergeLog orders ledger entries and commits by time, oldest first; within
// one second a ledger entry comes before a commit, as td log orders them.
func (src *Source) mergeLog(ledger []audit.Entry, commits []LogEntry) []LogEntry {
	out := make([]LogEntry, 0, len(ledger)+len(commits))
	for i := range ledger {
		out = append(out, LogEntry{Time: ledger[i].TS, Who: src.Name(ledger[i].Session), Ledger: &ledger[i]})
	}
	out = append(out, commits...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Time.Truncate(1e9), out[j].Time.Truncate(1e9)
		if !a.Equal(b) {
			return a.Before(b)
		}
		return out[i].Ledger != nil && out[j].Commit != nil
	})
	return out
}

// commitsByIssue walks git history once and lists, per issue, the commits
// that changed its file or ledger, oldest first. inGit is false outside a
// git repository.
func (src *Source) commitsByIssue() (map[string][]LogEntry, bool, error) {
	g, err := src.s.GitRepo()
	if err != nil || g == nil {
		return nil, false, err
	}
	prefix, err := src.s.TodosInRepo(g)
	if err != nil {
		return nil, true, err
	}
	issues, history := prefix+"/"+repo.IssuesDir, prefix+"/"+repo.HistoryDir
	if prefix == "." {
		issues, history = repo.IssuesDir, repo.HistoryDir
	}
	_, _, changes, err := g.DirHistory([]string{issues, history}, nil)
	if err != nil {
		return nil, true, repo.Errorf(repo.CodeInternal, "read the git history of .todos: %v", err)
	}
	out := map[string][]LogEntry{}
	// Newest first from the walk; each issue's list is reversed after.
	for _, ch := range changes {
		c := ch.Commit
		subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		entry := LogEntry{Time: c.Committer.When, Commit: &Commit{Hash: c.Hash, Author: c.Author.String(), Subject: subject}}
		seen := map[string]bool{}
		for _, f := range ch.Files {
			id := strings.TrimSuffix(strings.TrimSuffix(f.Name, ".md"), ".jsonl")
			if id == f.Name || seen[id] {
				continue
			}
			seen[id] = true
			out[id] = append(out[id], entry)
		}
	}
	for id, es := range out {
		for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
			es[i], es[j] = es[j], es[i]
		}
		out[id] = es
	}
	return out, true, nil
}

// Diff is the page of the range "BASE", "BASE..HEAD": td diff BASE [HEAD].
func (src *Source) Diff(rng string) (*Diff, error) {
	r, err := ResolveRange(src.s, rng)
	if err != nil {
		return nil, err
	}
	return src.DiffOf(rng, r)
}

// ResolveRange resolves the range "BASE", "BASE..HEAD" to the commits it
// compares, as td diff BASE [HEAD] does.
func ResolveRange(s *repo.Store, rng string) (*review.DiffRange, error) {
	base, head := ParseRange(rng)
	return review.ResolveDiffRange(s, base, head)
}

// DiffOf is the page of r, resolved from the range rng (ResolveRange),
// which names it.
func (src *Source) DiffOf(rng string, r *review.DiffRange) (*Diff, error) {
	base, head := ParseRange(rng)
	d, err := review.Diff(src.s, r)
	if err != nil {
		return nil, err
	}
	p := &Diff{Repo: src.repoName, Name: RangeName(base, head), TodosDiff: d, Who: map[string]string{}}
	if base == "" {
		p.Name = r.BaseRev
	}
	for _, e := range d.Problems {
		p.Problems = append(p.Problems, e.Error())
	}
	for _, is := range d.Issues {
		for _, e := range is.Ledger {
			p.Who[e.Session] = src.Name(e.Session)
		}
		for _, e := range is.Security {
			p.Who[e.SessionID] = src.Name(e.SessionID)
		}
	}
	for _, e := range d.Security {
		p.Who[e.SessionID] = src.Name(e.SessionID)
	}
	return p, nil
}

// Has reports whether an issue id has a page.
func (src *Source) Has(id string) bool { _, ok := src.byID[id]; return ok }
