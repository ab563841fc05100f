package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// StagedChange is one path whose index entry differs from HEAD's tree: what
// git commit would record for it, as git diff --cached lists it.
type StagedChange struct {
	Path     string // slash-separated, relative to the work tree root
	Added    bool   // HEAD has no file at the path
	Deleted  bool   // the index has no entry at the path
	Unmerged bool   // the index holds a merge conflict for the path
	Hash     string // the staged object; "" when deleted or unmerged
	Mode     uint32 // the staged mode: 0o100644, 0o100755, 0o120000 or 0o160000
	OldHash  string // HEAD's object; "" when added
	OldMode  uint32
}

// StagedChanges compares the repository's index with HEAD's tree and
// returns the paths that differ, sorted: added, modified (content or mode),
// deleted and unmerged. On a branch without commits every entry is added.
// Entries marked intent-to-add are not part of the next commit and are left
// out.
//
// The index is read directly, not through go-git's work tree status, which
// hashes the whole work tree. Directories whose cached tree in the index
// (the TREE extension) names HEAD's tree are skipped without reading it, so
// the cost follows the directories that changed.
func (r *Repo) StagedChanges() ([]StagedChange, error) {
	return r.StagedChangesIn("")
}

// StagedChangesIn is StagedChanges for another index file, such as the
// temporary one git names in GIT_INDEX_FILE while a hook runs during git
// commit -a. A relative path is taken from the work tree root; "" means the
// repository's own index.
func (r *Repo) StagedChangesIn(indexFile string) ([]StagedChange, error) {
	d, err := r.stagedDiff(indexFile)
	if err != nil {
		return nil, err
	}
	return d.out, nil
}

// stagedDiff runs the comparison of StagedChangesIn, returning the walk so
// that tests can see which trees it read.
func (r *Repo) stagedDiff(indexFile string) (*stagedDiff, error) {
	path := filepath.Join(r.gitDir, "index")
	if indexFile != "" {
		path = resolveFrom(r.root, indexFile)
	}
	data, _, err := readIndexFile(r.gitDir, path)
	if err != nil {
		return nil, fmt.Errorf("staged changes: %w", err)
	}
	entries, tree, err := readIndexEntries(data)
	if err != nil {
		return nil, fmt.Errorf("staged changes: read %s: %w", path, err)
	}
	o := r.openObjects()
	defer o.close()
	var head plumbing.Hash
	if h, err := o.resolve("HEAD"); err == nil {
		c, err := o.readCommit(h)
		if err != nil {
			return nil, fmt.Errorf("staged changes: %w", err)
		}
		head = c.tree
	} else if !errors.Is(err, errUnborn) {
		return nil, fmt.Errorf("staged changes: %w", err)
	}
	d := &stagedDiff{o: o}
	if err := d.dir("", entries, head, tree); err != nil {
		return nil, fmt.Errorf("staged changes: %w", err)
	}
	sort.Slice(d.out, func(i, j int) bool { return d.out[i].Path < d.out[j].Path })
	return d, nil
}

// indexEntry is what the comparison needs of one index entry.
type indexEntry struct {
	name  []byte // a slice of the index file's bytes
	mode  uint32
	hash  plumbing.Hash
	stage int
	ita   bool // intent-to-add: recorded, but not part of the next commit
}

// readIndexEntries decodes the entries of an index file, and its cached
// tree when there is one. Versions 2 and 3 are read here; anything else
// goes through go-git's decoder, without the cached tree.
func readIndexEntries(data []byte) ([]indexEntry, *treeNode, error) {
	if data == nil {
		return nil, nil, nil
	}
	be := binary.BigEndian
	if len(data) < indexHeaderLen+hashLen || string(data[:4]) != indexSignature {
		return nil, nil, errors.New("not a git index file")
	}
	body := len(data) - hashLen
	if !checksumOK(data) {
		return nil, nil, errors.New("the index checksum does not match its content; git status rebuilds a damaged index")
	}
	version := be.Uint32(data[4:])
	if version != 2 && version != 3 {
		return decodeIndexEntries(data)
	}
	count := be.Uint32(data[8:])
	entries := make([]indexEntry, 0, count)
	off := indexHeaderLen
	for range count {
		rec, err := readIndexRecord(data, off, body, version)
		if err != nil {
			return nil, nil, err
		}
		e := indexEntry{
			name:  rec.name,
			mode:  be.Uint32(data[off+entryModeOffset:]),
			stage: int(rec.flags&flagStageMask) >> 12,
			ita:   rec.xflags&xflagIntentToAdd != 0,
		}
		copy(e.hash[:], data[off+entryHashOffset:off+entryHashOffset+hashLen])
		entries = append(entries, e)
		off += rec.size
	}
	var tree *treeNode
	for p := off; p+8 <= body; {
		n := int(be.Uint32(data[p+4:]))
		if n < 0 || n > body-p-8 {
			break
		}
		if string(data[p:p+4]) == "TREE" {
			if t, rest, ok := parseTree(data[p+8:p+8+n], 0); ok && len(rest) == 0 {
				tree = t
			}
		}
		p += 8 + n
	}
	return entries, tree, nil
}

// decodeIndexEntries reads an index through go-git's decoder (version 4,
// for example).
func decodeIndexEntries(data []byte) ([]indexEntry, *treeNode, error) {
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, nil, err
	}
	entries := make([]indexEntry, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		entries = append(entries, indexEntry{name: []byte(e.Name), mode: uint32(e.Mode), hash: e.Hash, stage: int(e.Stage), ita: e.IntentToAdd})
	}
	sort.SliceStable(entries, func(i, j int) bool { return bytes.Compare(entries[i].name, entries[j].name) < 0 })
	return entries, nil, nil
}

// stagedDiff walks the index and HEAD's tree together, one directory at a
// time.
type stagedDiff struct {
	o     *historyReader
	out   []StagedChange
	reads int // trees decoded
}

// headItem is one entry of a tree object.
type headItem struct {
	rawEntry // the name, a slice of the tree object's bytes
	mode     uint32
	hash     plumbing.Hash
}

func (h headItem) isTree() bool { return h.mode&modeTypeMask == modeTree }

// dir compares entries, the index entries below prefix ("" or "dir/"),
// with the tree head (zero when HEAD has no such directory). node is the
// index's cached tree for the directory, nil when unknown.
//
// The index is sorted by path bytes, and a tree by name with directories
// compared as if their names ended in "/": grouping the index entries by
// their next path component gives the groups in the tree's order, so the
// two are walked side by side. A file and a directory of the same name do
// not match: the one is deleted, the other added, as git reports it.
func (d *stagedDiff) dir(prefix string, entries []indexEntry, head plumbing.Hash, node *treeNode) error {
	if node != nil && node.count >= 0 && !head.IsZero() && bytes.Equal(node.hash, head[:]) {
		return nil
	}
	items, err := d.tree(head)
	if err != nil {
		return err
	}
	k := 0
	for i := 0; i < len(entries); {
		rest := entries[i].name[len(prefix):]
		name, isDir := rest, false
		if slash := bytes.IndexByte(rest, '/'); slash >= 0 {
			name, isDir = rest[:slash], true
		}
		j := i + 1
		if isDir {
			for j < len(entries) && isBelow(entries[j].name[len(prefix):], name) {
				j++
			}
		} else {
			for j < len(entries) && bytes.Equal(entries[j].name, entries[i].name) {
				j++
			}
		}
		group := rawEntry{name: name, dir: isDir}
		for k < len(items) && compareEntryNames(items[k].rawEntry, group) < 0 {
			if err := d.gone(prefix, items[k]); err != nil {
				return err
			}
			k++
		}
		var h headItem
		inHead := k < len(items) && compareEntryNames(items[k].rawEntry, group) == 0
		if inHead {
			h = items[k]
			k++
		}
		if isDir {
			var sub plumbing.Hash
			if inHead {
				sub = h.hash
			}
			if err := d.dir(prefix+string(name)+"/", entries[i:j], sub, node.childNamed(string(name))); err != nil {
				return err
			}
		} else {
			d.file(entries[i:j], h, inHead)
		}
		i = j
	}
	for ; k < len(items); k++ {
		if err := d.gone(prefix, items[k]); err != nil {
			return err
		}
	}
	return nil
}

// isBelow reports whether path starts with the directory dir.
func isBelow(path, dir []byte) bool {
	return len(path) > len(dir) && path[len(dir)] == '/' && bytes.Equal(path[:len(dir)], dir)
}

// gone reports a HEAD entry the index has nothing for: a deleted file, or
// every file of a deleted directory.
func (d *stagedDiff) gone(prefix string, it headItem) error {
	if it.isTree() {
		return d.deletedTree(prefix+string(it.name)+"/", it.hash)
	}
	d.deleted(prefix+string(it.name), it)
	return nil
}

// file compares the index entries of one path (several when it is
// unmerged) with HEAD's file there.
func (d *stagedDiff) file(group []indexEntry, h headItem, inHead bool) {
	e := group[0]
	unmerged := len(group) > 1 || e.stage != 0
	if !unmerged && (e.ita || inHead && e.hash == h.hash && e.mode == h.mode) {
		return
	}
	c := StagedChange{Path: string(e.name), Added: !inHead, Unmerged: unmerged}
	if inHead {
		c.OldHash, c.OldMode = h.hash.String(), h.mode
	}
	if !unmerged {
		c.Hash, c.Mode = e.hash.String(), e.mode
	}
	d.out = append(d.out, c)
}

func (d *stagedDiff) deleted(path string, h headItem) {
	d.out = append(d.out, StagedChange{Path: path, Deleted: true, OldHash: h.hash.String(), OldMode: h.mode})
}

// deletedTree reports every file of a tree HEAD has and the index has not.
func (d *stagedDiff) deletedTree(prefix string, tree plumbing.Hash) error {
	items, err := d.tree(tree)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := d.gone(prefix, it); err != nil {
			return err
		}
	}
	return nil
}

// tree decodes the entries of a tree object; the zero hash is an empty tree.
func (d *stagedDiff) tree(h plumbing.Hash) ([]headItem, error) {
	if h.IsZero() {
		return nil, nil
	}
	d.reads++
	return readTreeItems(d.o, h)
}

// readTreeItems decodes the entries of the tree object h, in the tree's
// order. Names are slices of the object's bytes.
func readTreeItems(o *historyReader, h plumbing.Hash) ([]headItem, error) {
	data, err := o.treeData(h)
	if err != nil {
		return nil, err
	}
	items := make([]headItem, 0, len(data)/40)
	for len(data) > 0 {
		e, rest, err := nextRawEntry(data)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", h, err)
		}
		mode, err := parseMode(e.whole[:bytes.IndexByte(e.whole, ' ')])
		if err != nil {
			return nil, fmt.Errorf("read tree %s: %w", h, err)
		}
		it := headItem{rawEntry: e, mode: mode}
		copy(it.hash[:], e.whole[len(e.whole)-hashLen:])
		items = append(items, it)
		data = rest
	}
	return items, nil
}

// childNamed returns the cached tree of the subdirectory name, nil when the
// node or the child is unknown.
func (n *treeNode) childNamed(name string) *treeNode {
	if n == nil {
		return nil
	}
	if i := n.child(name); i >= 0 {
		return n.children[i]
	}
	return nil
}

// StagedBlob is what StageBlobs recorded for one path.
type StagedBlob struct {
	Path    string // slash-separated, relative to the work tree root
	Hash    string // the blob's object name; "" when Removed
	Mode    uint32 // the mode the index entry got
	Removed bool   // the file was gone, and its entry was dropped
}

// StageBlobs is Stage, reporting the object each path was staged as: for a
// caller that remembers what it wrote, so that it can later tell its own
// staged content from someone else's.
func (r *Repo) StageBlobs(paths ...string) ([]StagedBlob, error) {
	return r.StageBlobsSince(nil, paths...)
}

// StageBlobsSince is StageBlobs for a caller that read what it wrote with
// HEAD as since: when a checkout moved HEAD meanwhile (CheckHead), before
// or while td holds the index lock, nothing is staged and the error wraps
// ErrHeadMoved. since nil stages whatever HEAD says.
func (r *Repo) StageBlobsSince(since *HeadState, paths ...string) ([]StagedBlob, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	r.stageMu.Lock()
	defer r.stageMu.Unlock()
	defer r.locks.beginWrite()()
	if since != nil {
		if err := r.checkHead(*since); err != nil {
			return nil, err
		}
	}
	changes, err := r.prepareChanges(paths)
	if err != nil {
		return nil, fmt.Errorf("stage %s: %w", describePaths(paths), err)
	}
	lock, out, err := r.patchedIndex(changes, patchIndex)
	if err != nil {
		return nil, fmt.Errorf("stage %s: %w", describePaths(paths), err)
	}
	defer lock.release()
	defer out.done()
	if since != nil {
		// Under the index lock no checkout can begin, and one that wrote
		// the index since since was read moves HEAD next (CheckHead).
		if err := r.CheckHead(*since); err != nil {
			return nil, err
		}
	}
	if out != nil {
		if err := lock.writeParts(out.parts); err != nil {
			return nil, fmt.Errorf("stage %s: %w", describePaths(paths), err)
		}
		if err := lock.rename(); err != nil {
			return nil, fmt.Errorf("stage %s: %w", describePaths(paths), err)
		}
	}
	return r.stagedBlobs(changes), nil
}

// stagedBlobs reports what the index recorded for each change.
func (r *Repo) stagedBlobs(changes []*change) []StagedBlob {
	out := make([]StagedBlob, len(changes))
	for i, c := range changes {
		out[i] = StagedBlob{Path: c.path, Removed: c.remove}
		if !c.remove {
			out[i].Hash = plumbing.Hash(c.hash).String()
			out[i].Mode = c.indexMode(r.trustExecBit)
		}
	}
	return out
}

// HeadBlobs returns the object names HEAD's tree has at the given paths
// (slash-separated, relative to the work tree root); paths HEAD has no file
// at are left out. Each directory is read once, however many of the paths
// it holds, as a raw tree searched by name (ReadDirs): a close at 100,000
// issues asks for one ledger of .todos/history. On a branch without
// commits the map is empty.
func (r *Repo) HeadBlobs(paths []string) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	var dirs []string
	at := map[string]int{} // directory to its place in dirs
	for _, p := range paths {
		if parts, err := splitTreePath(p); err != nil || strings.Join(parts, "/") != p {
			continue // not a path in a tree: HEAD has no file there
		}
		dir, _ := splitDirName(p)
		if _, seen := at[dir]; !seen {
			at[dir] = len(dirs)
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return out, nil
	}
	_, ds, err := r.ReadDirs("HEAD", dirs...)
	if errors.Is(err, errUnborn) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read HEAD's tree: %w", err)
	}
	for _, p := range paths {
		dir, name := splitDirName(p)
		if i, ok := at[dir]; ok {
			if f, ok := ds[i].Lookup(name); ok {
				out[p] = f.Hash
			}
		}
	}
	return out, nil
}

// splitDirName splits a slash-separated path into its directory ("" at
// the root) and its name.
func splitDirName(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}
