package repo

import (
	"bufio"
	"bytes"
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

// JournalEntry is one write td made to a path.
type JournalEntry struct{ After, Before string }

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
		lines.WriteString(after + " " + tx.before[p] + " " + rel + "\n")
	}
	if lines.Len() > 0 {
		s.appendJournal(g, lines.Bytes())
	}
}

// appendJournal appends lines to the journal and compacts it when it has
// grown past twice its compacted size plus journalCompactAt, so that the
// cost per write stays one small append.
func (s *Store) appendJournal(g *gitrepo.Repo, lines []byte) {
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
	if err := s.compactJournal(g, p, data); err != nil {
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
func (s *Store) compactJournal(g *gitrepo.Repo, p string, data []byte) error {
	all := parseJournal(data)
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
			body.WriteString(e.After + " " + e.Before + " " + path + "\n")
		}
	}
	out := []byte(fmt.Sprintf("%s%d bytes\n", journalHeader, body.Len()))
	return writeCacheFile(p, append(out, body.Bytes()...))
}

// parseJournal returns td's writes to each path, oldest first. Lines it
// cannot read are skipped: a damaged journal only breaks chains.
func parseJournal(data []byte) map[string][]JournalEntry {
	all := map[string][]JournalEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		after, rest, ok1 := strings.Cut(line, " ")
		before, path, ok2 := strings.Cut(rest, " ")
		if !ok1 || !ok2 || path == "" || !journalHash(after) || !journalHash(before) {
			continue
		}
		all[path] = append(all[path], JournalEntry{After: after, Before: before})
	}
	return all
}

func journalHash(h string) bool {
	return h == JournalAbsent || h == journalUnknown || len(h) == 40
}

// readJournal reads the journal; a missing or unreadable one is empty.
func (s *Store) ReadJournal() map[string][]JournalEntry {
	data, err := readRegular(s.Path(LocalDir, journalName), maxLedgerSize)
	if err != nil {
		return map[string][]JournalEntry{}
	}
	return parseJournal(data)
}

// The journal of td's writes to meta paths (.todos/local/written, never
// committed): one line per write, "<after> <before> <path>", where after
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
