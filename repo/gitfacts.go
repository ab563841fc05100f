package repo

import (
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy/domain"
	"github.com/tdproject/td/repo/gitrepo"
)

// gitFactsVersion changes whenever the cache's meaning changes: 3 leaves
// out of Sessions the commits that only wrote criteria (CommitInvolves);
// 4 reads every trailer block of a message (a squash's too) and adds
// Workers.
const gitFactsVersion = 4

// gitFacts is what the committed history says about each issue: who added
// its file and which sessions' commits (by their Td-Session and Td-Action
// trailers) touched its files. It is a cache in .todos/local/gitfacts.bin,
// extended commit by commit as HEAD moves and rebuilt when history was
// rewritten; the commits themselves are the source of truth.
type gitFacts struct {
	Head string
	// Shallow is the shallow clone's boundary when the facts were read;
	// when it changes (the clone was deepened) they are read again.
	Shallow string
	Seen    []string
	// Issues holds the facts the scan derived or changed since the cache
	// file was read; file holds the rest, decoded only when asked for
	// (issue): a close at 100,000 issues decoded all of them, 31 ms, to
	// read one.
	Issues map[string]*IssueGit
	file   entryTable

	seen map[string]bool
}

// issue returns the facts of id, nil for none. Once the scan is done it is
// safe for concurrent use: it decodes a fresh copy from the file and
// changes nothing.
func (f *gitFacts) issue(id string) *IssueGit {
	if ig, ok := f.Issues[id]; ok {
		return ig
	}
	i, ok := f.file.find(id)
	if !ok {
		return nil
	}
	r := f.file.fields(i)
	ig := readIssueGit(r)
	if r.err != nil {
		return nil // cannot happen: the scan read it
	}
	return ig
}

// ids lists every issue with facts, sorted.
func (f *gitFacts) ids() []string {
	ids := slices.Clone(f.file.ids)
	for id := range f.Issues {
		if _, ok := f.file.find(id); !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// issueGit is one issue's facts from committed history.
type IssueGit struct {
	// AddedBy is the author of the oldest commit that added the issue
	// file; AddedSession its Td-Session trailer, if any.
	AddedBy      string
	AddedSession string
	AddedAt      time.Time
	// Sessions named by Td-Session in commits that touched the issue's
	// files, but for commits that only wrote criteria (CommitInvolves);
	// Implementers those whose Td-Action was started or unstarted;
	// Workers those whose Td-Action bound them to it (DoesWork).
	Sessions     []string
	Implementers []string
	Workers      []string
}

// CommitRecord is what one trailer block of a commit says td did: who
// (Td-Session), what (Td-Action) and to which issues (Td-Issue).
type CommitRecord struct {
	Sessions, Actions, Issues []string
	// Last is true for the message's last block, the one git reads as
	// its trailers: it speaks for every issue file the commit touched
	// when it names no issue. An earlier block (a squash keeps one per
	// commit it squashed) speaks only for the issues it names.
	Last bool
}

// sessionIdentity is the git identity session id's identity file names,
// false when td cannot read one.
func (s *Store) sessionIdentity(id string) (string, bool) {
	if !ValidSessionID(id) {
		return "", false
	}
	se, err := s.Session(id)
	if err != nil {
		return "", false
	}
	return se.Author, true
}

// CommitRecords reads what every trailer block of c says td did: those a
// squash kept in its body, then the trailers git reads (Last).
func CommitRecords(c *gitrepo.Commit) []CommitRecord {
	var out []CommitRecord
	for _, b := range c.BodyTrailerBlocks() {
		if r := recordOf(b); len(r.Sessions) > 0 {
			out = append(out, r)
		}
	}
	last := recordOf(c.Trailers)
	last.Last = true
	return append(out, last)
}

func recordOf(block []gitrepo.Trailer) CommitRecord {
	var r CommitRecord
	for _, t := range block {
		switch {
		case strings.EqualFold(t.Key, TrailerSession):
			r.Sessions = append(r.Sessions, t.Value)
		case strings.EqualFold(t.Key, TrailerAction):
			r.Actions = append(r.Actions, t.Value)
		case strings.EqualFold(t.Key, TrailerIssue):
			r.Issues = append(r.Issues, strings.Fields(t.Value)...)
		}
	}
	return r
}

// ByAuthor keeps of r the sessions a commit by author may speak for: a
// trailer names a session, and anyone can type one, so a session whose
// identity (identity, false when unknown) is another person's than the
// commit's author is dropped. A forged Td-Session trailer then makes
// nobody an implementer of an issue they never touched, and never blocks
// the real reviewer. Sessions whose identity is unknown are kept.
func (r CommitRecord) ByAuthor(author string, identity func(session string) (string, bool)) CommitRecord {
	kept := r
	kept.Sessions = nil
	for _, se := range r.Sessions {
		if id, ok := identity(se); ok && !domain.SameIdentity(id, author) {
			continue
		}
		kept.Sessions = append(kept.Sessions, se)
	}
	return kept
}

// StartedBefore reports whether the trailer blocks of one commit (a squash
// keeps a block per commit it squashed, in order) say that agent started
// issue before any block names the session person: the order two commits
// would have told, had the squash not made them one. false when no block
// says agent started it.
func StartedBefore(c *gitrepo.Commit, issue, agent, person string) bool {
	for _, r := range CommitRecords(c) {
		if slices.Contains(r.Sessions, person) {
			return false
		}
		if slices.Contains(r.Sessions, agent) && slices.Contains(r.Actions, audit.ActionStarted) && r.Concerns(issue) {
			return true
		}
	}
	return false
}

// Concerns reports whether the record speaks for issue id, whose file the
// commit touched: the last block speaks for every such issue, an earlier
// one for those it names.
func (r CommitRecord) Concerns(id string) bool { return r.Last || slices.Contains(r.Issues, id) }

// Note adds what record r says of the issue to ig: its sessions as
// involved, implementers and workers by its actions.
func (ig *IssueGit) Note(r CommitRecord) {
	if CommitInvolves(r.Actions) {
		ig.Sessions = AppendNew(ig.Sessions, r.Sessions...)
	}
	ig.NoteWork(r)
}

// NoteWork adds to ig the implementers and workers record r names, and
// no involvement.
func (ig *IssueGit) NoteWork(r CommitRecord) {
	for _, a := range r.Actions {
		switch {
		case implements(a):
			ig.Implementers = AppendNew(ig.Implementers, r.Sessions...)
		case DoesWork(a):
			ig.Workers = AppendNew(ig.Workers, r.Sessions...)
		}
	}
}

// implements reports whether an action makes its session an implementer.
func implements(a string) bool {
	return a == audit.ActionStarted || a == audit.ActionUnstarted || a == audit.ActionReclaimed
}

const (
	gitFactsFile  = "gitfacts.bin"
	gitFactsMagic = "TDGF"
)

// issueGitFacts returns the committed-history facts of one issue, nil when
// the tree is not in git or no commit touched the issue. The scan runs once
// per Store and only over commits not seen before.
func (s *Store) IssueGitFacts(id string) (*IssueGit, error) {
	if !s.gitFactsLoaded {
		s.gitFactsLoaded = true
		f, err := s.loadGitFacts()
		if err != nil {
			return nil, err
		}
		s.gitFacts = f
	}
	if s.gitFacts == nil {
		return nil, nil
	}
	return s.gitFacts.issue(id), nil
}

func (s *Store) loadGitFacts() (*gitFacts, error) {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil, err
	}
	cached := &gitFacts{}
	if data, err := s.readCache(gitFactsFile); err == nil {
		if f, err := decodeGitFacts(data); err == nil {
			cached = f
		}
	}
	f, err := s.scanGitFacts(cached)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// scanGitFacts extends cached with the commits it has not seen; when the
// cached HEAD is no longer in HEAD's history (a rebase, a reset), it starts
// over, since facts from commits that are gone must not count.
func (s *Store) scanGitFacts(cached *gitFacts) (*gitFacts, error) {
	g, _ := s.GitRepo()
	shallow := g.ShallowBoundary()
	if cached.Shallow != shallow {
		cached = &gitFacts{}
	}
	cached.seen = make(map[string]bool, len(cached.Seen))
	for _, h := range cached.Seen {
		cached.seen[h] = true
	}
	hitHead := false
	known := func(h string) bool {
		if h == cached.Head {
			hitHead = true
		}
		return cached.seen[h]
	}
	issuesDir := TodosDir + "/" + IssuesDir
	historyDir := TodosDir + "/" + HistoryDir
	head, walked, changes, err := g.DirHistory([]string{issuesDir, historyDir}, known)
	if err != nil {
		return nil, Errorf(CodeInternal, "read the git history of .todos: %v", err)
	}
	if head == cached.Head && cached.Issues != nil {
		return cached, nil
	}
	if cached.Head != "" && !hitHead {
		return s.scanGitFacts(&gitFacts{})
	}
	f := cached
	if f.Issues == nil {
		f.Issues = map[string]*IssueGit{}
	}
	type identityOf struct {
		id string
		ok bool
	}
	identities := map[string]identityOf{}
	identity := func(se string) (string, bool) {
		k, hit := identities[se]
		if !hit {
			k.id, k.ok = s.sessionIdentity(se)
			identities[se] = k
		}
		return k.id, k.ok
	}
	// Oldest first, so "the commit that added the file" is the first add.
	for i := len(changes) - 1; i >= 0; i-- {
		ch := changes[i]
		c := ch.Commit
		sessions := c.Trailer("Td-Session")
		records := CommitRecords(c)
		for _, fc := range ch.Files {
			id, ok := strings.CutSuffix(fc.Name, ".md")
			if fc.Dir == historyDir {
				id, ok = strings.CutSuffix(fc.Name, ".jsonl")
			}
			if !ok || !ValidIssueID(id) {
				continue
			}
			ig, ok := f.Issues[id]
			if !ok {
				if ig = f.issue(id); ig == nil {
					ig = &IssueGit{}
				}
				f.Issues[id] = ig
			}
			if fc.Dir == issuesDir && fc.Added && (ig.AddedBy == "" || c.Committer.When.Before(ig.AddedAt)) {
				ig.AddedBy, ig.AddedAt, ig.AddedSession = c.Author.String(), c.Committer.When.UTC(), ""
				if len(sessions) > 0 {
					ig.AddedSession = sessions[0]
				}
			}
			for _, r := range records {
				if r.Concerns(id) {
					ig.Note(r.ByAuthor(c.Author.String(), identity))
				}
			}
		}
	}
	for _, h := range walked {
		if !f.seen[h] {
			f.seen[h] = true
			f.Seen = append(f.Seen, h)
		}
	}
	f.Head, f.Shallow = head, shallow
	// A failed cache write only costs speed next time.
	_ = writeCacheFile(s.Path(LocalDir, gitFactsFile), encodeGitFacts(f))
	return f, nil
}

// encodeGitFacts writes the cache in the local caches' framing: the HEAD it
// describes, the commits already scanned (raw 20-byte names), then each
// issue's facts in ID order.
func encodeGitFacts(f *gitFacts) []byte {
	var w indexWriter
	w.b.WriteString(gitFactsMagic)
	w.b.WriteByte(gitFactsVersion)
	w.str(f.Head)
	w.str(f.Shallow)
	w.uint(uint64(len(f.Seen)))
	for _, h := range f.Seen {
		raw, err := hex.DecodeString(h)
		if err != nil || len(raw) != 20 {
			raw = make([]byte, 20) // never a real commit: costs a rescan at worst
		}
		w.b.Write(raw)
	}
	ids := f.ids()
	w.uint(uint64(len(ids)))
	for _, id := range ids {
		ig := f.issue(id)
		w.str(id)
		w.str(ig.AddedBy)
		w.str(ig.AddedSession)
		w.time(ig.AddedAt)
		w.strs(ig.Sessions)
		w.strs(ig.Implementers)
		w.strs(ig.Workers)
	}
	return w.seal()
}

func decodeGitFacts(data []byte) (*gitFacts, error) {
	r, err := openCache(data, gitFactsMagic, gitFactsVersion)
	if err != nil {
		return nil, err
	}
	f := &gitFacts{Head: r.str(), Shallow: r.str()}
	n := r.uint()
	if r.err != nil || n > uint64(len(r.s)-r.off)/20 {
		return nil, errBadIndex
	}
	f.Seen = make([]string, n)
	for i := range f.Seen {
		f.Seen[i] = hex.EncodeToString([]byte(r.s[r.off : r.off+20]))
		r.off += 20
	}
	n = r.uint()
	if r.err != nil || n > uint64(len(r.s)-r.off)/6 {
		return nil, errBadIndex
	}
	// The entries are indexed, not decoded: issue decodes one when asked.
	f.Issues = map[string]*IssueGit{}
	if f.file, err = scanEntries(r, n, skipIssueGit); err != nil {
		return nil, err
	}
	return f, nil
}

// skipIssueGit steps over what readIssueGit reads.
func skipIssueGit(r *indexReader) {
	r.str()
	r.str()
	r.int()
	r.skipStrs()
	r.skipStrs()
	r.skipStrs()
}

// readIssueGit reads one entry's fields, after its ID.
func readIssueGit(r *indexReader) *IssueGit {
	return &IssueGit{AddedBy: r.str(), AddedSession: r.str(), AddedAt: r.time(),
		Sessions: nilIfEmpty(r.strs()), Implementers: nilIfEmpty(r.strs()), Workers: nilIfEmpty(r.strs())}
}
