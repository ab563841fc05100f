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
//
// td show asks this of one issue, and the index is 16 MB at 100,000
// issues: reading it was most of what td show did. So every index write
// also writes children.bin, only the child_of links of the index's
// readable entries, in the index's order, stamped with the checksum of
// the index they came from. When that stamp is the checksum the index
// ends with now (four bytes read from its end), the links answer;
// otherwise (a crash between the two writes, an older td, a hand edit)
// the index does.
func (s *Store) ChildCandidates(id string) ([]string, error) {
	if out, ok := s.cachedChildLinks(id); ok {
		return out, nil
	}
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

// The child links cache, .todos/local/children.bin: magic, version, the
// CRC-32 of the index it was made from (4 bytes), then each link as its
// child's ID and its parent's ID, then its own CRC-32.
const (
	childrenFile    = "children.bin"
	childrenMagic   = "TDCH"
	childrenVersion = 1
)

// encodeChildren makes children.bin from the entries of the index whose
// bytes are index.
func encodeChildren(entries []indexEntry, index []byte) []byte {
	var w indexWriter
	w.b.WriteString(childrenMagic)
	w.b.WriteByte(childrenVersion)
	w.b.Write(index[len(index)-4:])
	for _, e := range entries {
		if e.issue == nil || e.err != nil {
			continue // as cachedChildren: not a conflicted file's ours side
		}
		for _, l := range e.issue.Links {
			if l.Kind == domain.ChildOf {
				w.str(e.issue.ID)
				w.str(l.To)
			}
		}
	}
	return w.seal()
}

// cachedChildLinks answers ChildCandidates from children.bin; ok is false
// when that file is missing, corrupt or made from another index.
func (s *Store) cachedChildLinks(id string) (out []string, ok bool) {
	data, err := s.readCache(childrenFile)
	if err != nil {
		return nil, false
	}
	stamp, err := decodeChildLinks(data, func(child, parent string) {
		if parent == id && (len(out) == 0 || out[len(out)-1] != child) {
			out = append(out, child)
		}
	})
	if err != nil {
		return nil, false
	}
	tail, err := ReadTail(s.Path(LocalDir, IndexFile), 4)
	if err != nil || string(tail) != stamp {
		return nil, false
	}
	return out, true
}

// decodeChildLinks reads children.bin: it returns the stamp of its index
// and calls fn with each link, as child and parent.
func decodeChildLinks(data []byte, fn func(child, parent string)) (stamp string, err error) {
	r, err := openCache(data, childrenMagic, childrenVersion)
	if err != nil || len(r.s) < 4 {
		return "", errBadIndex
	}
	stamp, r.off = r.s[:4], 4
	for r.off < len(r.s) {
		child, parent := r.str(), r.str()
		if r.err != nil {
			return "", r.err
		}
		fn(child, parent)
	}
	return stamp, nil
}
