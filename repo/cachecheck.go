package repo

import (
	"errors"
	"io/fs"
	"os"
)

// CacheProblem is a local cache under .todos/local that td cannot use.
// td rebuilds such a cache silently when it next needs it; td doctor names
// it, since a cache that keeps going bad points at something else (a full
// disk, another program writing there).
type CacheProblem struct {
	// Path is the cache file, relative to the work tree root.
	Path string
	// Msg says what is wrong with it.
	Msg string
}

// cacheDecoders are the local caches and the decoder that validates each.
func cacheDecoders() []struct {
	name   string
	decode func([]byte) error
} {
	return []struct {
		name   string
		decode func([]byte) error
	}{
		{IndexFile, func(b []byte) error { _, err := decodeIndexEntries(b); return err }},
		{childrenFile, func(b []byte) error { _, err := decodeChildLinks(b, func(string, string) {}); return err }},
		{ledgerCacheFile, func(b []byte) error { _, err := decodeLedgerCache(b); return err }},
		{namesFile, func(b []byte) error { _, _, _, err := decodeNames(b); return err }},
		{gitFactsFile, func(b []byte) error { _, err := decodeGitFacts(b); return err }},
	}
}

// CheckCaches reports each local cache that exists but cannot be read or
// decoded. A missing cache is not a problem: it is built on first use.
func (s *Store) CheckCaches() []CacheProblem {
	var out []CacheProblem
	for _, c := range cacheDecoders() {
		p := s.Path(LocalDir, c.name)
		data, err := readRegular(p, maxCacheSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			var r *refusal
			msg := err.Error()
			if errors.As(err, &r) {
				msg = r.reason
			}
			out = append(out, CacheProblem{Path: s.rel(p), Msg: msg})
		default:
			if c.decode(data) != nil {
				out = append(out, CacheProblem{Path: s.rel(p), Msg: "is corrupt (its checksum or layout does not match)"})
			}
		}
	}
	return out
}

// RebuildCaches removes the local caches and builds the index and ledger
// caches again from the files (the git facts cache is built by the next
// command that reads history). A cache that is a symlink or a directory is
// removed too: it is td's own path.
func (s *Store) RebuildCaches() error {
	for _, c := range cacheDecoders() {
		p := s.Path(LocalDir, c.name)
		if err := os.RemoveAll(p); err != nil {
			return s.FileError(p, err)
		}
	}
	all, _, err := s.LoadAll()
	if err != nil {
		return err
	}
	ForEach(len(all), IOWorkers(), 64, func(i int) {
		_, _ = s.LedgerFactsOf(all[i].ID) // an unreadable ledger is td check's to report
	})
	s.SaveLedgerCache()
	return nil
}
