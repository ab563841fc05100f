package gitrepo

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Unmerged is a path a merge left unfinished: the index holds it in
// stages 1 (the merge base), 2 (ours) and 3 (theirs) instead of stage 0.
// A side the merge did not have (a file added on both sides has no base;
// a file deleted on one side has no ours or theirs) is nil, with its Has
// flag false.
type Unmerged struct {
	// Path is slash-separated, relative to the work tree root.
	Path string
	// Base, Ours and Theirs are the contents of stages 1, 2 and 3.
	Base, Ours, Theirs          []byte
	HasBase, HasOurs, HasTheirs bool
}

// Unmerged lists the unmerged paths of the index under dir (a path
// relative to the work tree root, slash-separated; "" for all), with the
// contents of their stages, in index order. Only regular files are read;
// a stage that is a symlink or a submodule is reported as an error naming
// the path, since no text merge applies to it.
func (r *Repo) Unmerged(dir string) ([]Unmerged, error) {
	data, _, err := readIndexFile(r.gitDir, filepath.Join(r.gitDir, "index"))
	if err != nil {
		return nil, err
	}
	entries, _, err := readIndexEntries(data)
	if err != nil {
		return nil, fmt.Errorf("read the index: %w", err)
	}
	prefix := strings.TrimSuffix(dir, "/")
	if prefix != "" {
		prefix += "/"
	}
	var out []Unmerged
	var o *historyReader
	defer func() {
		if o != nil {
			o.close()
		}
	}()
	for _, e := range entries {
		if e.stage == 0 || !strings.HasPrefix(string(e.name), prefix) {
			continue
		}
		name := string(e.name)
		if len(out) == 0 || out[len(out)-1].Path != name {
			out = append(out, Unmerged{Path: name})
		}
		u := &out[len(out)-1]
		if e.mode&modeTypeMask != modeRegular {
			return nil, fmt.Errorf("%s: stage %d of the merge is not a regular file; resolve it with git", name, e.stage)
		}
		if o == nil {
			o = r.openObjects()
		}
		typ, content, err := o.read(e.hash)
		if err != nil {
			return nil, fmt.Errorf("read stage %d of %s: %w", e.stage, name, err)
		}
		if typ != plumbing.BlobObject {
			return nil, fmt.Errorf("stage %d of %s is a %s, not a blob", e.stage, name, typ)
		}
		switch e.stage {
		case 1:
			u.Base, u.HasBase = content, true
		case 2:
			u.Ours, u.HasOurs = content, true
		case 3:
			u.Theirs, u.HasTheirs = content, true
		}
	}
	return out, nil
}
