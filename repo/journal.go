package repo

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tdproject/td/policy"
	"github.com/tdproject/td/repo/gitrepo"
)

// JournalEntry is one write td made to a path: the blob names of the file
// once td wrote it and just before, and the size td left it at.
type JournalEntry struct {
	After, Before string
	Size          int64
}

// noteBefore remembers, the first time a transaction writes a meta path,
// the blob name of what was there. Other paths cost one classification.
func (tx *Tx) noteBefore(p string) {
	if _, ok := tx.before[p]; ok {
		return
	}
	m := policy.ScopeMap{Root: tx.s.Root, MetaPaths: tx.s.Config.MetaPaths}
	if _, class := m.Locate(p); class != policy.ClassMeta {
		return
	}
	h := JournalAbsent
	data, err := readRegular(p, maxLedgerSize)
	switch {
	case err == nil:
		h = gitrepo.BlobHash(data)
	case !errors.Is(err, fs.ErrNotExist):
		h = journalUnknown
	}
	if tx.before == nil {
		tx.before = map[string]string{}
	}
	tx.before[p] = h
}

// journal notes the transaction's writes to meta paths once they are
// staged (blobs), or in git mode off, where the user may stage them by hand,
// as their content says. Failures are warnings: the files are written
// either way.
func (s *Store) journal(tx *Tx, blobs []gitrepo.StagedBlob) {
	if len(tx.before) == 0 {
		return
	}
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return
	}
	key, err := journalKey(g)
	if err != nil {
		s.warnf("td guard will not recognise this write as td's: %v", err)
		return
	}
	staged := make(map[string]string, len(blobs))
	for _, b := range blobs {
		staged[b.Path] = b.Hash
		if b.Removed {
			staged[b.Path] = JournalAbsent
		}
	}
	paths := make([]string, 0, len(tx.before))
	for p := range tx.before {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var lines bytes.Buffer
	for _, p := range paths {
		r, err := filepath.Rel(g.Root(), p)
		if err != nil || !filepath.IsLocal(r) {
			continue
		}
		rel := filepath.ToSlash(r)
		after, ok := staged[rel]
		var size int64
		if fi, err := os.Lstat(p); err == nil {
			size = fi.Size()
		}
		if !ok && s.Config.Git.Mode == GitModeOff {
			after, ok = JournalAbsent, true
			data, err := readRegular(p, maxLedgerSize)
			switch {
			case err == nil:
				after = gitrepo.BlobHash(data)
			case !errors.Is(err, fs.ErrNotExist):
				ok = false
			}
		}
		if !ok {
			continue
		}
		lines.WriteString(journalLine(key, JournalEntry{After: after, Before: tx.before[p], Size: size}, rel))
	}
	if lines.Len() > 0 {
		s.appendJournal(g, key, lines.Bytes())
	}
}

// appendJournal appends lines to the journal and compacts it when it has
// grown past twice its compacted size plus journalCompactAt, so that the
// cost per write stays one small append.
func (s *Store) appendJournal(g *gitrepo.Repo, key, lines []byte) {
	p := s.Path(LocalDir, journalName)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		s.warnf("td guard will not recognise this write as td's: %v", err)
		return
	}
	_, werr := f.Write(lines)
	fi, serr := f.Stat()
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		s.warnf("td guard will not recognise this write as td's: %v", err)
		return
	}
	if serr != nil || fi.Size() <= journalCompactAt {
		return
	}
	data, err := readRegular(p, maxLedgerSize)
	if err != nil {
		return
	}
	if int64(len(data)) <= journalCompactAt+2*journalBase(data) {
		return
	}
	if err := s.compactJournal(g, key, p, data); err != nil {
		s.warnf("could not compact %s: %v", s.rel(p), err)
	}
}

// journalBase reads the compacted size from the journal's header line.
func journalBase(data []byte) int64 {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte(journalHeader))
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSuffix(string(rest), " bytes"), 10, 64)
	return n
}

// compactJournal rewrites the journal keeping, for each path, only the
// chain of writes that ends at td's last write and starts from HEAD's
// content; a path whose last write HEAD already holds is committed and
// dropped. Without a repository every path's chain is kept whole.
func (s *Store) compactJournal(g *gitrepo.Repo, key []byte, p string, data []byte) error {
	all := parseJournal(key, data)
	paths := make([]string, 0, len(all))
	for path := range all {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var head map[string]string
	if g != nil {
		var err error
		if head, err = g.HeadBlobs(paths); err != nil {
			return err
		}
	}
	var body bytes.Buffer
	for _, path := range paths {
		entries := all[path]
		cur := JournalAbsent
		if h, ok := head[path]; ok {
			cur = h
		}
		last := len(entries) - 1
		if g != nil && entries[last].After == cur {
			continue
		}
		first := last
		for first > 0 && entries[first].Before != cur && entries[first-1].After == entries[first].Before {
			first--
		}
		for _, e := range entries[first:] {
			body.WriteString(journalLine(key, e, path))
		}
	}
	out := []byte(fmt.Sprintf("%s%d bytes\n", journalHeader, body.Len()))
	return writeCacheFile(p, append(out, body.Bytes()...))
}

// parseJournal returns td's writes to each path, oldest first. Lines it
// cannot read, and lines whose seal key does not verify, are skipped: a
// damaged or forged journal only breaks chains.
func parseJournal(key, data []byte) map[string][]JournalEntry {
	all := map[string][]JournalEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		seal, line, ok0 := strings.Cut(line, " ")
		after, rest, ok1 := strings.Cut(line, " ")
		before, rest, ok2 := strings.Cut(rest, " ")
		sizeText, path, ok3 := strings.Cut(rest, " ")
		size, err := strconv.ParseInt(sizeText, 10, 64)
		if !ok0 || !ok1 || !ok2 || !ok3 || err != nil || size < 0 || path == "" || !journalHash(after) || !journalHash(before) {
			continue
		}
		e := JournalEntry{After: after, Before: before, Size: size}
		if !hmac.Equal([]byte(seal), []byte(journalSeal(key, e, path))) {
			continue
		}
		all[path] = append(all[path], e)
	}
	return all
}

func journalHash(h string) bool {
	return h == JournalAbsent || h == journalUnknown || len(h) == 40
}

// ReadJournal reads the journal; a missing or unreadable one is empty, and
// so is every line without a valid seal.
func (s *Store) ReadJournal() map[string][]JournalEntry {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return map[string][]JournalEntry{}
	}
	key, err := readJournalKey(g)
	if err != nil {
		return map[string][]JournalEntry{}
	}
	data, err := readRegular(s.Path(LocalDir, journalName), maxLedgerSize)
	if err != nil {
		return map[string][]JournalEntry{}
	}
	return parseJournal(key, data)
}

// The journal is sealed: each line starts with an HMAC-SHA256 (128 bits,
// hex) of the rest, keyed by a random key td keeps in the git directory
// (journalKeyName), outside the work tree and out of every commit. So
// appending "<after> <before> <path>" by hand, the way a hand edit would be
// smuggled past the guard, adds a line the guard ignores. We chose a key
// over re-deriving blob hashes because nothing in the work tree can tell
// td's writes from anyone else's: the journal's only evidence is that td
// wrote the line. A process that reads the key from .git can still forge
// it; that is deliberate tampering with td's own files, which the guard
// (a commit hook anyone can skip) cannot stop and td check --base in CI
// judges from the committed history regardless.
const journalKeyName = "td-journal.key"

// journalLine is one sealed journal line.
func journalLine(key []byte, e JournalEntry, path string) string {
	return journalSeal(key, e, path) + " " + journalBody(e, path) + "\n"
}

func journalBody(e JournalEntry, path string) string {
	return e.After + " " + e.Before + " " + strconv.FormatInt(e.Size, 10) + " " + path
}

// journalSeal is the seal of one journal entry.
func journalSeal(key []byte, e JournalEntry, path string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(journalBody(e, path)))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// JournalChain reports whether td's writes (oldest first) lead from head to
// staged: the last write that produced staged, each write before it on the
// way starting from what the previous one produced, back to one that
// started from head.
func JournalChain(entries []JournalEntry, staged, head string) bool {
	i := len(entries) - 1
	for i >= 0 && entries[i].After != staged {
		i--
	}
	for ; i >= 0; i-- {
		e := entries[i]
		if e.Before == head {
			return true
		}
		if i == 0 || entries[i-1].After != e.Before {
			return false
		}
	}
	return false
}

// CheckLedgerKept refuses when the ledger no longer begins with
// what td last wrote to it: a line td appended, and nobody committed yet,
// was removed by hand. Undoing one's own "started" before committing
// would otherwise erase the involvement the review policy reads. A write
// that a local branch committed (within branchHoldsDepth commits of its
// tip) is not pending: the work tree was switched to another branch.
func (s *Store) CheckLedgerKept(id string) error {
	g, err := s.GitRepo()
	if err != nil || g == nil {
		return nil
	}
	p := s.Path(HistoryDir, id+".jsonl")
	r, err := filepath.Rel(g.Root(), p)
	if err != nil || !filepath.IsLocal(r) {
		return nil
	}
	rel := filepath.ToSlash(r)
	entries := s.ReadJournal()[rel]
	if len(entries) == 0 {
		return nil
	}
	last := entries[len(entries)-1]
	if last.After == JournalAbsent || last.After == journalUnknown {
		return nil
	}
	// Only writes pending on top of HEAD count: a chain of td's writes from
	// HEAD's ledger to the last one. Writes made on another branch, or
	// already committed, say nothing about this file.
	heads, err := g.HeadBlobs([]string{rel})
	if err != nil {
		return nil
	}
	head, ok := heads[rel]
	if !ok {
		head = JournalAbsent
	}
	if head == last.After || !JournalChain(entries, last.After, head) {
		return nil
	}
	data, err := readRegular(p, maxLedgerSize)
	if err == nil && int64(len(data)) >= last.Size && gitrepo.BlobHash(data[:last.Size]) == last.After {
		return nil
	}
	// td's last write was committed on another branch, and the work tree
	// has moved since: a checkout, not a removal.
	if held, err := g.BranchHolds(rel, last.After, branchHoldsDepth); err == nil && held {
		return nil
	}
	return Errorf(CodeRefused, "%s no longer begins with what td last wrote to it: a ledger line td appended was removed or changed by hand before it was committed, so td decides no review on it; put the lines back (git diff shows what differs from HEAD) or have an operator look", s.rel(p))
}

// branchHoldsDepth is how far below each branch's tip CheckLedgerKept
// looks for td's last write.
const branchHoldsDepth = 100

// journalKey reads the journal key, making it on first use. The key is
// written to a temporary file, synced, and linked into place, so a kill or
// a full disk never leaves a partial key, and two td processes making it
// at once agree on the first one linked.
func journalKey(g *gitrepo.Repo) ([]byte, error) {
	if key, err := readJournalKey(g); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	p := filepath.Join(g.CommonDir(), journalKeyName)
	tmp, err := os.CreateTemp(g.CommonDir(), journalKeyName+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create the journal key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write([]byte(hex.EncodeToString(raw[:]) + "\n"))
	serr := tmp.Sync()
	if err := errors.Join(werr, serr, tmp.Chmod(0o600), tmp.Close()); err != nil {
		return nil, fmt.Errorf("write the journal key: %w", err)
	}
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("place the journal key: %w", err)
	}
	return readJournalKey(g) // ours, or the one another td linked first
}

// readJournalKey reads the journal key from the git directory.
func readJournalKey(g *gitrepo.Repo) ([]byte, error) {
	data, err := readRegular(filepath.Join(g.CommonDir(), journalKeyName), 1<<10)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("%s is damaged; delete it and td makes a new one (td's pending writes to meta paths then need writing again)", journalKeyName)
	}
	return key, nil
}

// The journal of td's writes to meta paths (.todos/local/written, never
// committed): one line per write, "<seal> <after> <before> <size> <path>", where after
// and before are the blob names of the file once td wrote it and just before
// ("-" for no file), appended under the store lock when a transaction ends.
// A staged meta path is td's when a chain of td's writes leads from HEAD's
// content to the staged content: a hand edit anywhere on the way breaks the
// chain, even when td appended to the file afterwards. The journal is a
// cache: losing it only makes the guard refuse td's own pending writes to
// meta paths until td writes them again.
const (
	journalName   = "written"
	JournalAbsent = "-"
	// journalUnknown is the before of a file td could not read: no chain
	// passes through it.
	journalUnknown = "?"
	// journalCompactAt is the size past which the journal is rewritten
	// with only the chains that still matter.
	journalCompactAt = 64 << 10
	journalHeader    = "# td writes; compacted to "
)
