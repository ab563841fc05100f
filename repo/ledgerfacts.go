package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/tdproject/td/audit"
	"github.com/tdproject/td/policy"
)

// ledgerFacts is what the review policy reads from an issue's ledger. td
// reviewable needs it for every issue in review, so it is cached in
// .todos/local/ledgers.bin, keyed by the ledger file's size and mtime like
// the index cache, and rebuilt silently when stale or corrupt.
type LedgerFacts struct {
	size, mtime int64

	// Creator is the session of the first "created" entry.
	Creator    string
	HasCreator bool
	// Minor is the minor flag as the ledger tells it: set by td create
	// --minor, changed by td edit --minor.
	Minor bool
	// CurrentImplementer is the session of the last "started" entry not
	// followed by "unstarted": who the ledger says works on the issue.
	CurrentImplementer string
	// Implementers started or unstarted the issue; Workers were bound to
	// it (DoesWork); Involved have any entry but their own review
	// decisions and security records; MinorMarkedBy turned the issue minor.
	Implementers, Workers, Involved, MinorMarkedBy []string
	// Commented is true when some entry is a comment: td search reads
	// the ledgers of only those issues for the words their files lack.
	Commented bool
	// LastEvent is the time of the latest entry: when td last recorded
	// anything about the issue. Issue files carry no such field, so that
	// two branches touching one issue do not both change the same line.
	LastEvent time.Time
	// WorkEnds are the entries that ended the work on the issue (unstarted,
	// closed, approved, reopened), each once, in ledger order: a claim
	// taken before one of them covers nothing after it (policy.ClaimEnd).
	WorkEnds []policy.WorkEnd
}

// endsWork are the ledger actions that end the work a claim covers.
var endsWork = map[string]bool{audit.ActionUnstarted: true, audit.ActionClosed: true, audit.ActionApproved: true, audit.ActionReopened: true}

// notInvolving are ledger actions that do not make a session "involved"
// in an issue for the review policy: a reviewer's own review decisions,
// and writing, dropping or reopening acceptance criteria, which defines
// done rather than doing the work (DefinesDone).
var notInvolving = map[string]bool{audit.ActionApproved: true, audit.ActionRejected: true, audit.ActionClosedAgainst: true,
	audit.ActionCriterionAdded: true, audit.ActionCriterionDropped: true, audit.ActionCriterionReopened: true}

// DefinesDone reports whether a ledger action (or a commit's Td-Action)
// writes the definition of done: adding, dropping or reopening an
// acceptance criterion. It is not involvement for the review table, so
// the operator who wrote an issue's criteria signs them off. Claiming a
// criterion done is the work, and is.
func DefinesDone(action string) bool {
	switch action {
	case audit.ActionCriterionAdded, audit.ActionCriterionDropped, audit.ActionCriterionReopened:
		return true
	}
	return false
}

// DoesWork reports whether a ledger action (or a commit's Td-Action)
// besides starting, unstarting and reclaiming is the work itself: being
// bound to the issue (td send, td session bind). Whoever did the work
// may not sign it off (approve it, or close it as done), started or not.
func DoesWork(action string) bool { return action == audit.ActionBound }

// CommitInvolves reports whether a commit with the Td-Action trailers
// actions involves its Td-Session in the issues it touched: every commit
// does but one whose actions all define done. A commit with no Td-Action
// (a person's own, its trailer added by td's commit hooks) does.
func CommitInvolves(actions []string) bool {
	for _, a := range actions {
		if !DefinesDone(a) {
			return true
		}
	}
	return len(actions) == 0
}

// deriveLedgerFacts reads the policy's facts out of ledger entries.
func DeriveLedgerFacts(entries []audit.Entry) LedgerFacts {
	var f LedgerFacts
	for _, e := range entries {
		if e.TS.After(f.LastEvent) {
			f.LastEvent = e.TS.UTC()
		}
		switch e.Action {
		case audit.ActionCommented:
			f.Commented = true
		case audit.ActionCreated:
			if !f.HasCreator {
				f.HasCreator, f.Creator = true, e.Session
				f.Minor = e.Details["minor"] == true
			}
		case audit.ActionStarted, audit.ActionUnstarted, audit.ActionReclaimed:
			f.Implementers = AppendNew(f.Implementers, e.Session)
			f.CurrentImplementer = ""
			if e.Action != audit.ActionUnstarted {
				f.CurrentImplementer = e.Session
			}
		case audit.ActionBound:
			f.Workers = AppendNew(f.Workers, e.Session)
		case audit.ActionEdited:
			if m, ok := e.Details["minor"].(map[string]any); ok {
				f.Minor = m["to"] == true
				if f.Minor {
					f.MinorMarkedBy = AppendNew(f.MinorMarkedBy, e.Session)
				}
			}
		}
		if endsWork[e.Action] && e.Type != audit.TypeSecurity {
			end := policy.WorkEnd{TS: e.TS.UTC(), Action: e.Action, Session: e.Session}
			// A line a squash and a merge-back brought twice is one end.
			if !slices.Contains(f.WorkEnds, end) {
				f.WorkEnds = append(f.WorkEnds, end)
			}
		}
		if !notInvolving[e.Action] && e.Type != audit.TypeSecurity {
			f.Involved = AppendNew(f.Involved, e.Session)
		}
	}
	return f
}

// appendNew appends the non-empty ids list does not hold yet, in order:
// the session lists the policy reads are sets kept in first-seen order.
func AppendNew(list []string, ids ...string) []string {
	for _, id := range ids {
		if id != "" && !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	return list
}

// ledgerCache holds the cached facts for one Store: those of the cache
// file, decoded only when asked for (a command asks for a few of 10,000:
// td board for the closed issues', td search for its candidates'), and
// those decoded or derived since, in m.
type ledgerCache struct {
	mu     sync.Mutex
	loaded bool
	dirty  bool
	file   entryTable
	m      map[string]LedgerFacts
}

// lookup returns the cached facts of id, decoding them from the file
// unless derived since. The caller holds c.mu.
func (c *ledgerCache) lookup(id string) (LedgerFacts, bool) {
	if f, ok := c.m[id]; ok {
		return f, true
	}
	i, ok := c.file.find(id)
	if !ok {
		return LedgerFacts{}, false
	}
	return c.factsAt(i)
}

// factsAt decodes the facts of the file's i-th entry.
func (c *ledgerCache) factsAt(i int) (LedgerFacts, bool) {
	r := c.file.fields(i)
	f := readLedgerFields(r)
	if r.err != nil {
		return LedgerFacts{}, false // cannot happen: the scan read it
	}
	return f, true
}

// lookupAscending is lookup for ids asked in ascending order, *at
// carrying the search on from the last (entryTable.findFrom).
func (c *ledgerCache) lookupAscending(id string, at *int) (LedgerFacts, bool) {
	if f, ok := c.m[id]; ok {
		return f, true
	}
	i, ok := c.file.findFrom(id, at)
	if !ok {
		return LedgerFacts{}, false
	}
	return c.factsAt(i)
}

// load reads the cache file once. The caller holds c.mu.
func (c *ledgerCache) load(s *Store) {
	if c.loaded {
		return
	}
	c.loaded = true
	c.m = map[string]LedgerFacts{}
	data, err := s.readCache(ledgerCacheFile)
	if err != nil {
		return
	}
	if t, err := scanLedgerCache(data); err == nil {
		c.file = t
	} // corrupt: rebuilt silently
}

// The cache's version changes whenever the facts derived from a ledger
// do: 6 reads a line that repeats an earlier one as the same entry and
// records when the work on an issue ended (WorkEnds); 7 leaves the
// sessions that only wrote criteria out of Involved; 8 keeps Workers (the
// sessions bound to the issue), which 7 dropped, so that a cached read
// let a session that worked on an issue approve it where td check, which
// reads the ledger itself, refused. A cache of an earlier version is
// rebuilt.
const (
	ledgerCacheFile    = "ledgers.bin"
	ledgerCacheMagic   = "TDLF"
	ledgerCacheVersion = 8
)

// PreloadLedgerFacts reads the ledger facts cache now, so that the
// lookups that follow find it decoded: a command that will need the facts
// of many issues starts it on another goroutine while it reads the
// issues. Safe to call from any goroutine, and more than once.
func (s *Store) PreloadLedgerFacts() {
	c := &s.ledgers
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load(s)
}

// ledgerFactsOf returns the review facts of an issue's ledger, from the
// cache when the ledger file has not changed since.
func (s *Store) LedgerFactsOf(id string) (LedgerFacts, error) {
	p := s.Path(HistoryDir, id+".jsonl")
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return LedgerFacts{}, nil
	}
	if err != nil {
		return LedgerFacts{}, s.FileError(p, err)
	}
	c := &s.ledgers
	c.mu.Lock()
	c.load(s)
	cached, ok := c.lookup(id)
	c.mu.Unlock()
	if ok && cached.mtime != -1 && cached.size == fi.Size() && cached.mtime == fi.ModTime().UnixNano() {
		return cached, nil
	}
	entries, lerrs, err := s.Ledger(id)
	if err != nil {
		return LedgerFacts{}, err
	}
	if len(lerrs) > 0 {
		// A line td cannot read might be the one that says who started
		// the work: the policy does not decide on part of the record.
		return LedgerFacts{}, &Error{Code: CodeRefused, Err: lerrs[0],
			Msg: fmt.Sprintf("%v; the review policy needs the whole ledger, so repair or restore that line first", lerrs[0])}
	}
	f := DeriveLedgerFacts(entries)
	f.size, f.mtime = fi.Size(), fi.ModTime().UnixNano()
	// An untrusted entry that is still within the racy window would be
	// stored untrusted again: no need to rewrite the cache for it.
	stillRacy := ok && staysUntrusted(cached.mtime, f.mtime, racyCutoff())
	c.mu.Lock()
	c.m[id] = f
	c.dirty = c.dirty || !stillRacy
	c.mu.Unlock()
	return f, nil
}

// saveLedgerCache writes the cache if anything changed. A failed write
// only costs speed next time.
func (s *Store) SaveLedgerCache() {
	c := &s.ledgers
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	c.dirty = false
	if err := os.MkdirAll(s.Path(LocalDir), 0o755); err != nil {
		return
	}
	all := make(map[string]LedgerFacts, len(c.file.ids)+len(c.m))
	for _, id := range c.file.ids {
		f, _ := c.lookup(id)
		all[id] = f
	}
	maps.Copy(all, c.m)
	_ = writeCacheFile(s.Path(LocalDir, ledgerCacheFile), encodeLedgerCache(all, racyCutoff()))
}

// encodeLedgerCache writes the cache; entries whose ledger changed after
// racyBefore are stored as untrusted, as in the index cache.
func encodeLedgerCache(m map[string]LedgerFacts, racyBefore int64) []byte {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var w indexWriter
	w.b.WriteString(ledgerCacheMagic)
	w.b.WriteByte(ledgerCacheVersion)
	w.uint(uint64(len(ids)))
	for _, id := range ids {
		f := m[id]
		mtime := storedMtime(f.mtime, racyBefore)
		w.str(id)
		w.int(f.size)
		w.int(mtime)
		w.str(f.Creator)
		w.str(f.CurrentImplementer)
		var flags byte
		if f.HasCreator {
			flags |= 1
		}
		if f.Minor {
			flags |= 2
		}
		if f.Commented {
			flags |= 4
		}
		w.b.WriteByte(flags)
		w.strs(f.Implementers)
		w.strs(f.Involved)
		w.strs(f.MinorMarkedBy)
		w.strs(f.Workers)
		w.time(f.LastEvent)
		w.uint(uint64(len(f.WorkEnds)))
		for _, e := range f.WorkEnds {
			w.time(e.TS)
			w.str(e.Action)
			w.str(e.Session)
		}
	}
	return w.seal()
}

// decodeLedgerCache reads the whole cache into a map: td doctor's check
// and the tests. Commands read it through scanLedgerCache.
func decodeLedgerCache(data []byte) (map[string]LedgerFacts, error) {
	t, err := scanLedgerCache(data)
	if err != nil {
		return nil, err
	}
	m := make(map[string]LedgerFacts, len(t.ids))
	for i, id := range t.ids {
		m[id] = readLedgerFields(t.fields(i))
	}
	return m, nil
}

// scanLedgerCache checks the cache and indexes its entries, reading each
// entry's fields only to step over them.
func scanLedgerCache(data []byte) (entryTable, error) {
	r, err := openCache(data, ledgerCacheMagic, ledgerCacheVersion)
	if err != nil {
		return entryTable{}, err
	}
	n := r.uint()
	if n > uint64(len(r.s))/4 {
		return entryTable{}, errBadIndex
	}
	return scanEntries(r, n, skipLedgerFields)
}

// readLedgerFields reads the fields of one entry, after its ID.
func readLedgerFields(r *indexReader) LedgerFacts {
	f := LedgerFacts{size: r.int(), mtime: r.int(), Creator: r.str(), CurrentImplementer: r.str()}
	flags := r.byte()
	f.HasCreator, f.Minor, f.Commented = flags&1 != 0, flags&2 != 0, flags&4 != 0
	f.Implementers, f.Involved, f.MinorMarkedBy = nilIfEmpty(r.strs()), nilIfEmpty(r.strs()), nilIfEmpty(r.strs())
	f.Workers = nilIfEmpty(r.strs())
	f.LastEvent = r.time()
	n := r.uint()
	if r.err != nil || n > 1<<16 {
		r.err = errBadIndex
		return f
	}
	for range n {
		f.WorkEnds = append(f.WorkEnds, policy.WorkEnd{TS: r.time(), Action: r.str(), Session: r.str()})
	}
	return f
}

// skipLedgerFields steps over what readLedgerFields reads, checking the
// same bounds, without allocating.
func skipLedgerFields(r *indexReader) {
	r.int()
	r.int()
	r.str()
	r.str()
	r.byte()
	for range 4 {
		r.skipStrs()
	}
	r.int()
	n := r.uint()
	if r.err != nil || n > 1<<16 {
		r.err = errBadIndex
		return
	}
	for j := uint64(0); j < n && r.err == nil; j++ {
		r.int()
		r.str()
		r.str()
	}
}

func nilIfEmpty(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	return ss
}
