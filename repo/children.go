package repo

import (
	"bytes"
	"slices"

	"github.com/tdproject/td/policy/domain"
)

// ChildCandidates lists the issues that may be child_of id, for a caller
// that reads each again to be sure. To keep td close within its time
// budget it does not stat every issue file: it looks in the index cache as
// td last wrote it (rebuilding it only when missing or corrupt). A child
// made by a hand edit or a pull is seen once any td listing has refreshed
// the cache.
func (s *Store) ChildCandidates(id string) ([]string, error) {
	data, err := s.readCache(IndexFile)
	if err == nil {
		if err = checkCache(data, indexMagic, indexVersion); err == nil {
			var candidates []string
			if candidates, err = cachedChildren(data, id); err == nil {
				return candidates, nil
			}
		}
	}
	all, _, err := s.LoadAll()
	if err != nil {
		return nil, err
	}
	return childrenIn(all, id), nil
}

// cachedChildren finds the issues the index cache records as child_of id.
// A link is encoded as its kind and its target, so when those bytes occur
// nowhere in the cache no entry needs decoding: the common case of an
// issue without children costs one search.
func cachedChildren(data []byte, id string) ([]string, error) {
	var w indexWriter
	w.str(string(domain.ChildOf))
	w.str(id)
	if !bytes.Contains(data, w.b.Bytes()) {
		return nil, nil
	}
	entries, err := decodeIndexEntries(data)
	if err != nil {
		return nil, err
	}
	var all []*Issue
	for _, e := range entries {
		if e.issue != nil && e.err == nil { // not a conflicted file's ours side
			all = append(all, e.issue)
		}
	}
	return childrenIn(all, id), nil
}

func childrenIn(all []*Issue, id string) []string {
	var out []string
	for _, is := range all {
		if slices.Contains(is.Links, domain.Link{Kind: domain.ChildOf, To: id}) {
			out = append(out, is.ID)
		}
	}
	return out
}
